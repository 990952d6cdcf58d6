import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the shared test helpers (op_catalogue)
