from codemode.cli.main import main
from codemode.cli.process_exit import leave

leave(main())
