"""regen --shard: the jobs of a matrix explore disjoint shares that cover every function."""

from __future__ import annotations

from pathlib import Path

from codemode.config import Config
from codemode.explore.writing.regen import run_regen
from codemode.scope import Scope
from codemode.shard import in_shard

IDS = (
    "shop.text.slugify",
    "shop.text.initials",
    "shop.pricing.with_vat",
    "shop.pricing.split_bill",
    "shop.dates.quarter",
    "shop.cart.top_skus",
)


def test_two_shards_split_the_functions(shop: Path, shop_config: Config) -> None:
    seen = []
    for k in (1, 2):
        report = run_regen(shop_config, Scope("all"), dry_run=True, function_ids=IDS, shard=(k, 2))
        ids = {f.id for f in report.functions}
        assert ids == {fid for fid in IDS if in_shard(fid, (k, 2))}
        seen.append(ids)
    assert seen[0].isdisjoint(seen[1])
    assert seen[0] | seen[1] == set(IDS)
    assert seen[0] and seen[1]  # this id set does split: neither share is empty
