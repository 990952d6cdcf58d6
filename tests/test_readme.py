"""The README's Python snippet runs, and what its comments say it prints is what it prints."""

import re
from pathlib import Path

README = (Path(__file__).parent.parent / "README.md").read_text()


def test_readme_snippet_runs_as_documented():
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert blocks, "the README should show the engine in use"
    namespace = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)   # the project's own fixed text
    assert repr(namespace["x"].grad) == "tensor([4.0000, 0.6000, 0.0800])"   # as the README's comment says
    assert namespace["g"].tolist() == [12.0, 27.0, 48.0]                       # 3x^2 at 2, 3, 4
