"""Each flag of benchmarks/upgrade_detection.py names a call that shows the change: a drifted
case of the function's spec, or a witness of the behaviour diff. Here those calls are taken
out of codemode's JSON report (and the spec files, for a case's inputs) and re-run on both
releases by the differential runner, so that a flag counts only when its call really
behaves differently (stable on the old release, a different outcome on the new one)."""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from _differential import Call
from _releases import OBSERVE, run_beside

FLAG_STATUSES = ("drifted", "changed")  # a verdict that flags a function
NOT_RECHECKABLE = "not re-checkable"


@dataclass(frozen=True)
class Witness:
    function: str
    call: Call | None  # None: the call has no plain Python form the runner can rebuild
    source: str  # "case <id>" or "witness <n>"
    text: str  # how codemode showed it
    # a method's instance as codemode's recipe builds it: (what is called to build it: the
    # class, a classmethod or a factory, by id; args source; kwargs source; the calls that
    # prepared it: (method, args source, kwargs source)); None = ``Class()``
    receiver: Receiver | None = None
    # the lines the call's arguments need (the test file's imports and names), run first:
    # arguments the tests build (codemode's JSON ``built``), as codemode ran them
    setup: str = ""
    # the instance as the test's lines build it (codemode's JSON ``built["self"]``): an
    # expression evaluated after ``setup``
    self_expr: str = ""
    # the witness is a state the call left (codemode's ``after``): the re-check compares the
    # instance's and the mutable arguments' state after the call too
    state: bool = False
    # the witness calls what the function returned (codemode's ``then``, #32): ("args",
    # (source, ...)) calls it, ("sort", (source,)) sorts that list with it as the key
    then: tuple[str, tuple[str, ...]] | None = None


Sources = tuple[str, ...]
Named = tuple[tuple[str, str], ...]
Receiver = tuple[str, Sources, Named, tuple[tuple[str, Sources, Named], ...]]


def _literal(value: Any) -> str | None:
    """Python source of a YAML-safe value, or None for one that has no literal form."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"  # repr() gives nan and inf: no literal reads them back
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, list):
        items = [_literal(v) for v in value]
        return None if None in items else f"[{', '.join(items)}]"  # type: ignore[arg-type]
    if isinstance(value, dict) and len(value) == 1 and isinstance(value.get("$bytes"), str):
        import base64  # codemode's canonical bytes (worker/tags.py BYTES_TAG)

        return repr(base64.b64decode(value["$bytes"]))
    if isinstance(value, dict) and any(str(k).startswith("$") for k in value):
        return None  # another tagged form ($class, $repr...): no plain literal rebuilds it
    if isinstance(value, dict):
        pairs = [(_literal(k), _literal(v)) for k, v in value.items()]
        if any(k is None or v is None for k, v in pairs):
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    return None


def call_from_inputs(fid: str, case: dict[str, Any], origin: str) -> Call | None:
    """The call a spec case makes (``input`` or ``inputs``), as plain Python source."""
    if "input" in case:
        args, kwargs = [case["input"]], {}
    elif isinstance(case.get("inputs"), list):
        args, kwargs = case["inputs"], {}
    elif isinstance(case.get("inputs"), dict):
        args, kwargs = [], case["inputs"]
    else:
        args, kwargs = [], {}
    a = [_literal(v) for v in args]
    k = [(str(key), _literal(v)) for key, v in kwargs.items()]
    if None in a or any(v is None for _, v in k):
        return None
    return Call(fid, tuple(a), tuple(k), origin)  # type: ignore[arg-type]


# The value types the re-check's namespace has (RECHECK's NS, as _differential's runner): a
# witness's ``Decimal('0.1')`` is rebuilt as one. Before, such a call had no literal form, the re-check
# fell back to the JSON's arguments (none, for arguments the tests build), and toml 0.10.1's
# dumps({'a': Decimal('0.1')}), a real change, counted as a false alarm.
# Builtins it has too, for the forms codemode's notation writes (float('nan'), set()).
RUNNER_TYPES = frozenset(
    {"Decimal", "Fraction", "date", "datetime", "time", "timedelta", "float", "set", "frozenset"}
)


# repr()'s qualified names of RUNNER_TYPES, as codemode's notation writes them
# (``datetime.date(2016, 5, 1)``): the runner's namespace binds the bare names, and there
# ``datetime`` is the class, whose ``.date`` is a method. Before, such a call did not parse
# as one the runner can make, the re-check fell back to the JSON's arguments (the reprs, as
# text), both releases raised one TypeError, and boltons' daterange's real witnesses (7
# items on 21.0.0, 16 on 23.0.0) were scored "flagged without a correct witness".
QUALIFIED = {
    "datetime.date": "date",
    "datetime.datetime": "datetime",
    "datetime.time": "time",
    "datetime.timedelta": "timedelta",
    "decimal.Decimal": "Decimal",
    "fractions.Fraction": "Fraction",
}


class _Unqualified(ast.NodeTransformer):
    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name):
            bare = QUALIFIED.get(f"{node.value.id}.{node.attr}")
            if bare is not None:
                return ast.copy_location(ast.Name(bare, ast.Load()), node)
        return self.generic_visit(node)


def _value_source(node: ast.expr) -> str:
    """Python source of an argument the runner can rebuild: a literal, or a container of
    literals and calls of RUNNER_TYPES with such arguments. ValueError otherwise."""
    node = _Unqualified().visit(node)
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            if not (isinstance(sub.func, ast.Name) and sub.func.id in RUNNER_TYPES):
                raise ValueError("a call the runner cannot make")
            for a in [*sub.args, *(k.value for k in sub.keywords)]:
                ast.literal_eval(a)
        elif isinstance(sub, ast.Name) and sub.id not in RUNNER_TYPES:
            raise ValueError("a name the runner does not have")
    if any(isinstance(sub, ast.Call) for sub in ast.walk(node)):
        return ast.unparse(node)
    return repr(ast.literal_eval(node))


def call_from_text(fid: str, text: str, origin: str) -> Call | None:
    """A call written as ``name(args)`` (a witness's call), when its arguments are literals or
    values of RUNNER_TYPES."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Call):
        return None
    try:
        args = tuple(_value_source(a) for a in node.args)
        kwargs = tuple((k.arg or "", _value_source(k.value)) for k in node.keywords)
    except ValueError:
        return None
    if any(k == "" for k, _ in kwargs):
        return None
    return Call(fid, args, kwargs, origin)


def _spec_cases(root: Path, spec: str | None, fid: str) -> dict[str, dict[str, Any]]:
    if not spec:
        return {}
    try:
        data = yaml.safe_load((root / spec).read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return {}
    block = data.get(fid) or {}
    out = {}
    for item in block.get("dataset") or ():
        case = item.get("case", item) if isinstance(item, dict) else None
        if isinstance(case, dict) and "id" in case:
            out[str(case["id"])] = case
    return out


def _then(then: Any) -> tuple[str, tuple[str, ...]] | None:
    """codemode's ``then`` as sources the runner evaluates, or None (no literal form)."""
    if not isinstance(then, dict):
        return None
    if isinstance(then.get("sort"), list):
        items = _literal(then["sort"])
        return None if items is None else ("sort", (items,))
    args = [_literal(v) for v in then.get("args") or ()]
    return None if None in args else ("args", tuple(args))  # type: ignore[arg-type]


def witness_call(fid: str, w: Any, n: int) -> Witness:
    origin = f"witness {n}"
    if not isinstance(w, dict):
        return Witness(fid, None, origin, str(w))
    if w.get("then") is not None:
        return _then_witness(fid, w, origin)
    call = None
    receiver = None
    if w.get("receiver"):  # the recipe: {"cls", "args", "kwargs", "calls"}
        receiver = _receiver(w["receiver"])
        if receiver is None:
            return Witness(fid, None, origin, str(w.get("call", ""))[:200])
    text = str(w.get("call", ""))
    if receiver is None and text:
        # the call as codemode showed it, with repr()'s literals: the JSON's args hold bytes
        # as text (report.model's JSON default), and b'test.toml' re-ran as 'test.toml'
        call = call_from_text(fid, text, origin)
    built = w.get("built") if receiver is None else None
    if call is None and isinstance(built, dict) and isinstance(built.get("args"), list):
        # arguments the tests build (``alg=ns.DEFAULT``, a list bound to a name): rebuilt
        # from their expressions and setup; the JSON's ``args`` hold none of them, and a call
        # rebuilt from those (``natsorted()``) raised the same TypeError on both releases
        named = tuple((str(k), str(v)) for k, v in (built.get("kwargs") or {}).items())
        call = Call(fid, tuple(str(a) for a in built["args"]), named, origin)
        shown = f"{text}: {w.get('old')!r} -> {w.get('new')!r}"
        setup, me = str(built.get("setup") or ""), str(built.get("self") or "")
        return Witness(fid, call, origin, shown[:200], None, setup, me, _after(w))
    if call is None and ("inputs" in w or "input" in w):
        call = call_from_inputs(fid, w, origin)
    elif (
        call is None and "args" in w
    ):  # codemode's JSON witness: args (list), kwargs (mapping or null)
        call = call_from_inputs(fid, {"inputs": list(w.get("args") or [])}, origin)
        kwargs = w.get("kwargs") or {}
        if call is not None and kwargs:
            extra = call_from_inputs(fid, {"inputs": dict(kwargs)}, origin)
            call = None if extra is None else Call(fid, call.args, extra.kwargs, origin)
    if call is None and text:
        call = call_from_text(fid, text, origin)
    shown = f"{text or w.get('inputs')}: {w.get('old')!r} -> {w.get('new')!r}"
    return Witness(fid, call, origin, shown[:200], receiver, state=_after(w))


def _then_from_text(text: str) -> tuple[str, tuple[str, ...]] | None:
    """``f(...)(x)`` -> ("args", ("x",)); ``sorted([...], key=f(...))`` -> ("sort", ...)."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
        if not isinstance(node, ast.Call):
            return None
        if isinstance(node.func, ast.Call) and not node.keywords:
            return "args", tuple(_value_source(a) for a in node.args)
        if isinstance(node.func, ast.Name) and node.func.id == "sorted" and node.args:
            return "sort", (_value_source(node.args[0]),)
    except (SyntaxError, ValueError):
        return None
    return None


def _then_witness(fid: str, w: dict[str, Any], origin: str) -> Witness:
    """A witness that calls what the function returned (``keygen()(x)``): the function's call
    from the JSON's arguments (or as the tests built them), then the callable called so."""
    text = str(w.get("call", ""))
    # the call as codemode showed it first: the JSON holds bytes as text (``b'x'`` as 'x')
    then = _then_from_text(text) or _then(w["then"])
    shown = f"{text}: {w.get('old')!r} -> {w.get('new')!r}"[:200]
    built = w.get("built")
    if then is None or w.get("receiver"):
        return Witness(fid, None, origin, shown)
    if isinstance(built, dict) and isinstance(built.get("args"), list):
        named = tuple((str(k), str(v)) for k, v in (built.get("kwargs") or {}).items())
        call: Call | None = Call(fid, tuple(str(a) for a in built["args"]), named, origin)
        setup = str(built.get("setup") or "")
        return Witness(fid, call, origin, shown, None, setup, then=then)
    call = call_from_inputs(fid, {"inputs": list(w.get("args") or [])}, origin)
    kwargs = w.get("kwargs") or {}
    if call is not None and kwargs:
        extra = call_from_inputs(fid, {"inputs": dict(kwargs)}, origin)
        call = None if extra is None else Call(fid, call.args, extra.kwargs, origin)
    return Witness(fid, call, origin, shown, then=then)


def _after(w: dict[str, Any]) -> bool:
    return any(isinstance(o, dict) and "after" in o for o in (w.get("old"), w.get("new")))


def _receiver(r: Any) -> Receiver | None:
    """codemode's recipe of an instance as sources the runner evaluates, or None when an
    argument has no literal form. Before, the re-check built ``Class(*args)`` whatever the
    recipe called and dropped the calls that prepared it: an instance a factory builds
    (``create_markdown()``) or a test prepares (``p.add_rule('x')``) re-ran as another one,
    and a real witness counted as "flagged without a correct witness"."""
    if not isinstance(r, dict):
        return None
    made = _sources(r.get("args"), r.get("kwargs"))
    steps = []
    for step in r.get("calls") or ():
        name, args, kwargs = [*list(step), [], {}][:3]
        sources = _sources(args, kwargs)
        if sources is None:
            return None
        steps.append((str(name), *sources))
    if made is None:
        return None
    return (str(r.get("cls", "")), made[0], made[1], tuple(steps))


def _sources(args: Any, kwargs: Any) -> tuple[Sources, Named] | None:
    built = call_from_inputs("", {"inputs": list(args or [])}, "")
    named = call_from_inputs("", {"inputs": dict(kwargs or {})}, "")
    if built is None or named is None:
        return None
    return built.args, named.kwargs


def witnesses(root: Path, function: dict[str, Any]) -> list[Witness]:
    """The calls that show a flagged function's change: its drifted cases, its witnesses."""
    fid = function["id"]
    out = []
    cases = _spec_cases(root, function.get("spec"), fid)
    for case in function.get("cases", ()):
        if case.get("status") != "drifted":
            continue
        spec_case = cases.get(case["id"])
        call = call_from_inputs(fid, spec_case, f"case {case['id']}") if spec_case else None
        shown = f"{case['id']}: {case.get('expected')!r} -> {case.get('observed')!r}"
        out.append(Witness(fid, call, f"case {case['id']}", shown[:200]))
    for n, w in enumerate(function.get("witnesses") or (), 1):
        out.append(witness_call(fid, w, n))
    return out


RECHECK = (
    OBSERVE
    + r"""
import datetime, decimal, fractions, importlib, inspect, json, sys
sys.path.insert(0, sys.argv[1])
# RUNNER_TYPES, as the differential runner has them
NS = {"timedelta": datetime.timedelta, "date": datetime.date, "datetime": datetime.datetime,
      "time": datetime.time, "Decimal": decimal.Decimal, "Fraction": fractions.Fraction}
def resolve(fid):
    # the longest importable module, then attributes: a function, or a class and a method
    parts = fid.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        chain = [obj]
        for p in parts[i:]:
            chain.append(getattr(chain[-1], p))
        return chain
    raise ImportError(fid)
def made(receiver, cls):
    # codemode's recipe: what it calls (the class, a classmethod, a factory), then the calls
    # that prepared the instance, in order
    maker = resolve(receiver[0])[-1] if receiver[0] else cls
    ev = lambda xs: [eval(x, dict(NS)) for x in xs]
    kw = lambda ps: {n: eval(v, dict(NS)) for n, v in ps}
    obj = maker(*ev(receiver[1]), **kw(receiver[2]))
    for name, a, k in receiver[3] if len(receiver) > 3 else ():
        getattr(obj, name)(*ev(a), **kw(k))
    return obj
def described(value):
    # an object whose repr says only where it lives (a parsed tree's node, `<Identifier 'a'
    # at 0x...>`) also by its class and public attributes (__dict__'s and slots'), as deep
    # as they go: two trees of nodes of another class have one repr at their top (sqlparse
    # 0.4.4's parsestream read "same", its IN no Comparison any more). Other values: the repr.
    text = repr(value)
    return ADDRESS.sub("", text if not ADDRESS.search(text) else form(value, set(), [20000]))
def form(value, inside, left):
    text = repr(value)
    if not ADDRESS.search(text) or left[0] <= 0:
        return text
    left[0] -= 1
    inside.add(id(value))
    try:
        if isinstance(value, (list, tuple, set, frozenset)):
            items = [form(v, inside, left) for v in value]
            items = sorted(items) if isinstance(value, (set, frozenset)) else items
            return type(value).__name__ + "[" + ", ".join(items) + "]"
        if isinstance(value, dict):
            pairs = (form(k, inside, left) + ": " + form(v, inside, left) for k, v in value.items())
            return "{" + ", ".join(pairs) + "}"
        held = getattr(value, "__dict__", None)
        names = [k for k in held if not str(k).startswith("_")] if isinstance(held, dict) else []
        for klass in reversed(type(value).__mro__):
            slots = klass.__dict__.get("__slots__", ())
            for n in (slots,) if isinstance(slots, str) else slots:
                if isinstance(n, str) and not n.startswith("_") and n not in names:
                    names.append(n)
        parts = []
        for n in names:
            try:
                v = getattr(value, n)
            except Exception:
                continue
            if id(v) not in inside:  # a link back up (a node's parent): the top holds it
                parts.append(n + "=" + form(v, inside, left))
        return text + ("{" + ", ".join(parts) + "}" if parts else "")
    finally:
        inside.discard(id(value))
def after(obj, args, kwargs):
    # the state a call left, as codemode's `after` shows it: the instance's public
    # attributes, and the arguments of a mutable kind
    parts = []
    if obj is not None:
        held = getattr(obj, "__dict__", None)
        held = {k: v for k, v in held.items() if not k.startswith("_")} if isinstance(held, dict) else obj
        parts.append(held)
    parts += [v for v in [*args, *kwargs.values()] if isinstance(v, (list, dict, set, bytearray))]
    return shown(ADDRESS.sub("", repr(parts)))
def outcome(fid, args, kwargs, receiver, setup="", me="", state=False, then=None):
    try:
        chain = resolve(fid)
        ns = dict(NS)
        if setup:
            exec(setup, ns)  # the test file's imports and names the arguments need
        a = [eval(x, ns) for x in args]
        k = {key: eval(v, ns) for key, v in kwargs}
        it = eval(me, ns) if me else None  # the instance as the test's lines build it
    except Exception as e:
        return "bad-input:" + type(e).__name__
    held = []
    def call():
        fn = chain[-1]
        name = fid.rsplit(".", 1)[1]
        # a method: on an instance; a classmethod or staticmethod on its class, as codemode
        # calls it (jsonpointer's JsonPointer.get_part ran as JsonPointer().get_part, whose
        # TypeError on both releases read a real change as a false alarm)
        bound = len(chain) >= 3 and isinstance(chain[-2], type) and not isinstance(
            inspect.getattr_static(chain[-2], name, None), (classmethod, staticmethod))
        if bound:
            cls = chain[-2]
            obj = it if me else cls() if receiver is None else made(receiver, cls)
            held.append(obj)
            fn = getattr(obj, name)
            if isinstance(inspect.getattr_static(cls, name, None), property):
                fn = lambda *_, **__: getattr(obj, name)  # read, as codemode reads it (#32)
        got = fn(*a, **k)
        if then:  # what it returned, called as codemode's witness says (#32)
            how, sources = then
            vals = [eval(x, dict(NS)) for x in sources]
            got = sorted(vals[0], key=got) if how == "sort" else got(*vals)
        return got
    got = observe(call, 1.0)
    if state and got.startswith("value:"):
        got += " after:" + after(held[0] if held else None, a, k)
    return got
json.dump([outcome(*c) for c in json.load(sys.stdin)], sys.stdout)
"""
)


def _rerun(src: Path, found: list[Witness]) -> list[str]:
    payload = []
    for w in found:
        assert w.call is not None
        recv = None
        if w.receiver is not None:
            made, args, kwargs, steps = w.receiver
            named = [list(k) for k in kwargs]
            prepared = [[n, list(a), [list(k) for k in kw]] for n, a, kw in steps]
            recv = [made, list(args), named, prepared]
        call = [w.function, list(w.call.args), [list(k) for k in w.call.kwargs], recv]
        then = [w.then[0], list(w.then[1])] if w.then else None
        payload.append([*call, w.setup, w.self_expr, w.state, then])
    return run_beside(RECHECK, src, payload, "re-running witnesses")


def recheck(
    old_src: Path, new_src: Path, found: list[Witness], module_level: set[str] | None = None
) -> dict[Witness, str]:
    """Each witness's verdict: 'real' (stable on the old release, a different value or
    exception type on the new), 'real (message)' (the same exception type with another
    message), 'same' (no difference when re-run), 'unstable', or NOT_RECHECKABLE (an input
    with no literal form; shown apart, never counted as correct). Methods run on the
    witness's instance (or ``Class()``), as codemode ran them."""
    runnable = [w for w in found if w.call is not None]
    verdict = {w: NOT_RECHECKABLE for w in found}
    if not runnable:
        return verdict
    old1, old2, new = (
        _rerun(old_src, runnable),
        _rerun(old_src, runnable),
        _rerun(new_src, runnable),
    )
    for w, a, b, n in zip(runnable, old1, old2, new):
        if a != b or "timeout" in (a, n) or a.startswith("bad-input"):
            verdict[w] = "unstable"
        elif a == n:
            verdict[w] = "same"
        elif _kind(a) == _kind(n):
            verdict[w] = "real (message)"  # the same exception type, another message
        else:
            verdict[w] = "real"
    return verdict


def _kind(outcome: str) -> str:
    return outcome.split(":", 2)[1] if outcome.startswith("raised:") else outcome


def steady(old_src: Path, new_src: Path, calls: list[Call], runs: int = 3) -> list[bool]:
    """Whether each call gives one outcome on each release over ``runs`` runs of each, and
    not the same on both. The ground truth runs the old release twice and the new once, so a
    random function whose output is a coin flip (a permutation of two items) passes as
    changed one call in eight; its change is confirmed here before it counts."""
    found = [Witness(c.function, c, "truth", "") for c in calls]
    if not found:
        return []
    olds = [_rerun(old_src, found) for _ in range(runs)]
    news = [_rerun(new_src, found) for _ in range(runs)]
    out = []
    for i in range(len(found)):
        a, b = {o[i] for o in olds}, {n[i] for n in news}
        out.append(len(a) == 1 and len(b) == 1 and a != b and "timeout" not in a | b)
    return out
