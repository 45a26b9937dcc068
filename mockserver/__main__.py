from mockserver.cli import main

raise SystemExit(main())
