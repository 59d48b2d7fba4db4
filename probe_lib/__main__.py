from probe_lib.cli import main

raise SystemExit(main())
