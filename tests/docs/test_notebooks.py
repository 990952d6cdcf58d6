"""The example notebooks: they are what examples/make_notebooks.py writes (no outputs), and
they run in a Jupyter kernel with every report shown once, as one HTML output, and nothing
printed on the side. Skipped where nbclient, nbformat or an IPython kernel is missing
(``pip install -e ".[notebook]"``). The five run in one kernel, one after the other, so that
the kernel starts once."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MAKER = runpy.run_path(str(EXAMPLES / "make_notebooks.py"))     # its cells, not run as a script
NAMES = sorted(MAKER["NOTEBOOKS"])


def test_five_notebooks_ship_as_their_script_writes_them():
    assert len(NAMES) == 5 and sorted(p.name for p in EXAMPLES.glob("*.ipynb")) == NAMES
    for name in NAMES:
        on_disk = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
        assert on_disk == json.loads(MAKER["notebook"](MAKER["NOTEBOOKS"][name], name[:2])), f"rerun examples/make_notebooks.py ({name})"
        code = [c for c in on_disk["cells"] if c["cell_type"] == "code"]
        assert code and all(c["outputs"] == [] and c["execution_count"] is None for c in code)


def _kernel_manager():
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    from jupyter_client.kernelspec import NoSuchKernel
    from jupyter_client.manager import KernelManager
    try:
        manager = KernelManager(kernel_name="python3")
        manager.kernel_spec      # noqa: B018  (raises when there is no such kernel)
    except NoSuchKernel:
        pytest.skip("no python3 Jupyter kernel")
    return nbformat, manager


def _ends_in_a_report(source: str) -> bool:
    """Whether a cell's last line is a report (a call of compare, explain, step_sweep, swell
    or audit, or a name bound to one), read from the cell's text, not from its outputs."""
    last = source.strip().splitlines()[-1]
    calls = ("diffcompare.compare(", "diffcompare.explain(", "diffcompare.step_sweep(", "diffcompare.swell(",
             "diffcompare.audit(", "HTML(")
    return last.startswith(calls) or (last.isidentifier() and f"{last} = diffcompare." in source)


def test_every_report_shows_once_as_html(tmp_path):
    nbformat, manager = _kernel_manager()
    from nbclient import NotebookClient
    manager.start_kernel(cwd=str(tmp_path))
    try:
        for name in NAMES:
            nb = nbformat.read(EXAMPLES / name, as_version=4)
            NotebookClient(nb, km=manager, timeout=120, allow_errors=False).execute()
            for cell in (c for c in nb.cells if c.cell_type == "code"):
                html = [o for o in cell.outputs if "text/html" in o.get("data", {})]
                where = f"{name}: {cell.source.splitlines()[0]}"
                if _ends_in_a_report(cell.source):
                    assert len(cell.outputs) == 1 and len(html) == 1, where
                    assert html[0].output_type in ("execute_result", "display_data")
                    shown = html[0]["data"]["text/html"]
                    assert "<table" in shown or "<svg" in shown or "<pre" in shown, where
                    assert html[0]["data"]["text/plain"].count("\n") == 0, where      # the text view: one line
                else:       # no report: what the cell prints, nothing displayed by a renderer on the side
                    assert html == [] and all(o.output_type in ("stream", "execute_result") for o in cell.outputs), where
    finally:
        manager.shutdown_kernel(now=True)


def test_the_lecture_notebook_runs_and_shows_each_report_once(tmp_path):
    nbformat, manager = _kernel_manager()
    from nbclient import NotebookClient

    from diffcompare.lecture.lecture import lecture
    text = lecture("x**3 + sin(x)", at={"x": 0.5}, ns=(1, 2), sizes=(1, 2)).render("notebook")
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    manager.start_kernel(cwd=str(tmp_path))
    try:
        NotebookClient(nb, km=manager, timeout=180, allow_errors=False).execute()
    finally:
        manager.shutdown_kernel(now=True)
    code = [c for c in nb.cells if c.cell_type == "code"]
    reports = [c for c in code if _ends_in_a_report(c.source)]
    assert len(reports) >= 5                                  # explain twice, steps, swell, compare
    for cell in reports:
        html = [o for o in cell.outputs if "text/html" in o.get("data", {})]
        assert len(cell.outputs) == 1 and len(html) == 1, cell.source
    engine = next(c for c in code if "retain_graph=True" in c.source)
    import math
    import re
    shown = [float(v) for v in re.findall(r"tensor\(([-0-9.e]+)", engine.outputs[0]["data"]["text/plain"])]
    derivative = 3 * 0.5 ** 2 + math.cos(0.5)                 # by hand
    assert shown == pytest.approx([derivative, 2 * derivative], rel=1e-4)     # accumulated by the second backward
