import sys

from claimbook.cli import main

sys.exit(main())
