from codemode.cli.main import main

raise SystemExit(main())
