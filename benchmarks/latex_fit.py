"""Does every LaTeX fragment fit? Each command's LaTeX (compare, explain, steps, swell) for a
set of functions — short and long expressions, many variables, vectors and matrices,
Jacobians, Hessians, swell up to n = 6 with its expressions — compiled by pdflatex in two
wrappers: a 16:9 beamer frame (``\\documentclass[aspectratio=169]{beamer}``) and a 10-pt
article page, each loading the packages the fragments' header comments name. The measure
is pdflatex's own: the widest "Overfull \\hbox" of each command in each wrapper (0 when
nothing overflows), and any LaTeX error.

Also here, for the tests: the wrappers, the compile and the log's parse, and a width
estimate that needs no pdflatex (characters per line of every tabular row and formula).

Run: python benchmarks/latex_fit.py [--command C ...] [--keep DIR]   (--keep: the documents, logs, PDFs)
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # run from a checkout too

WRAPPERS = {
    # (document class line, what opens and closes each fragment)
    "beamer": (r"\documentclass[aspectratio=169]{beamer}", r"\begin{frame}[allowframebreaks]", r"\end{frame}"),
    "article": (r"\documentclass[10pt]{article}", r"\noindent", r"\clearpage"),
}
PACKAGE = re.compile(r"\\usepackage(\[[^]]*\])?\{([^}]*)\}")


def pdflatex() -> str | None:
    return shutil.which("pdflatex")


def packages(fragments) -> list:
    """The packages the fragments' header comments (their first lines, each begun by %)
    name (``% needs \\usepackage{booktabs}...``), each once, in the order first named."""
    out = []
    for text in fragments:
        header = re.match(r"(?:%.*\n)*", text).group(0)
        for options, names in PACKAGE.findall(header):
            for name in names.split(","):
                line = rf"\usepackage{options}{{{name.strip()}}}"
                if line not in out:
                    out.append(line)
    return out


def document(fragments: dict, wrapper: str):
    """(the document's text, {name: (first line, last line)}): every fragment in its own
    frame or page."""
    documentclass, opening, closing = WRAPPERS[wrapper]
    lines = [documentclass, *packages(fragments.values()), r"\begin{document}"]
    ranges = {}
    for name, text in fragments.items():
        first = len(lines) + 1
        lines += [opening, *text.rstrip("\n").split("\n"), closing]
        ranges[name] = (first, len(lines))
    lines.append(r"\end{document}")
    return "\n".join(lines) + "\n", ranges


OVERFULL = re.compile(r"^Overfull \\hbox \(([\d.]+)pt too wide\) .*?(?:lines? (\d+)(?:--(\d+))?)", re.M)
ERROR = re.compile(r"^! (.*?)$(?:.*?^l\.(\d+))?", re.M | re.S)


def compile_fragments(fragments: dict, wrapper: str, timeout: float = 120, keep: str | None = None) -> dict:
    """{name: {"widest": pt, "boxes": count, "errors": [messages]}} of the fragments
    compiled together by pdflatex in ``wrapper`` (one run)."""
    text, ranges = document(fragments, wrapper)
    out = {name: {"widest": 0.0, "boxes": 0, "errors": []} for name in fragments}

    def owner(line):
        for name, (first, last) in ranges.items():
            if first <= line <= last:
                return name
        return None
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "fit.tex").write_text(text, encoding="utf-8")
        env = {**os.environ, "max_print_line": "100000", "error_line": "254", "half_error_line": "238"}
        subprocess.run([pdflatex(), "-interaction=nonstopmode", "-no-shell-escape", "fit.tex"], cwd=folder,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout, env=env)
        log = Path(folder, "fit.log").read_text(encoding="latin-1")
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            for name in ("fit.tex", "fit.log", "fit.pdf"):
                if Path(folder, name).exists():
                    shutil.copy(Path(folder, name), Path(keep, f"{wrapper}-{name}"))
    for match in OVERFULL.finditer(log):
        name = owner(int(match.group(3) or match.group(2)))
        if name is None:
            continue
        out[name]["boxes"] += 1
        out[name]["widest"] = max(out[name]["widest"], float(match.group(1)))
    for match in ERROR.finditer(log):
        name = owner(int(match.group(2))) if match.group(2) else None
        for key in ([name] if name else list(out)):
            out[key]["errors"].append(match.group(1).strip())
    return out


# -- the width estimate (no pdflatex) ----------------------------------------------------------

# an article's 10-pt line is 345 pt, a 16:9 beamer frame's 398 pt of 11-pt sans serif: at a
# digit's width (5 pt in Computer Modern 10 pt, 5.5 pt in 11-pt sans), 69 and 72 characters
LINE_CHARACTERS = 69


def _strip(tex: str) -> str:
    """The characters a line of LaTeX shows, about: commands named by one character
    (\\alpha, \\to), spacing and sizing commands, braces and math shifts left out, a
    fraction as the wider of its parts."""
    tex = re.sub(r"%.*", "", tex)
    while True:
        new = re.sub(r"\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}",
                     lambda m: max(m.group(1), m.group(2), key=len), tex)
        if new == tex:
            break
        tex = new
    tex = re.sub(r"\\(begin|end)\{[^}]*\}(\[[^]]*\])?(\{[^}]*\})?", "", tex)
    tex = re.sub(r"\\(left|right|bigl|bigr|Bigl|Bigr|big|Big)\b\.?", "", tex)
    tex = re.sub(r"\\(texttt|textbf|textit|mathrm|operatorname|text|mbox|emph)\b", "", tex)
    tex = re.sub(r"\\(toprule|midrule|bottomrule|hline|par|medskip|smallskip|bigskip|raggedright|noindent|"
                 r"small|footnotesize|scriptsize|tiny|quad|qquad|displaystyle|allowbreak|hfill)\b", "", tex)
    tex = re.sub(r"\\[,;:! ]", "", tex)
    tex = re.sub(r"\\[a-zA-Z]+", "x", tex)          # a symbol: one character
    tex = re.sub(r"\\.", "x", tex)                  # \& \% \_ ...
    return re.sub(r"[{}$&^_~]", "", tex)


def _split_top(text: str, separator: str) -> list:
    """``text`` split at ``separator`` where no brace nor environment is open."""
    parts, depth, start, k = [], 0, 0, 0
    while k < len(text):
        if text.startswith(r"\begin{", k):
            depth += 1
        elif text.startswith(r"\end{", k):
            depth -= 1
        elif text[k] == "\\" and text.startswith(separator, k) and depth == 0 and separator == r"\\":
            parts.append(text[start:k])
            k += 2
            start = k
            continue
        elif text[k] == "\\":
            k += 2
            continue
        elif text[k] == "{":
            depth += 1
        elif text[k] == "}":
            depth -= 1
        elif text[k] == separator and depth == 0:
            parts.append(text[start:k])
            start = k + 1
        k += 1
    parts.append(text[start:])
    return parts


def _cell_width(cell: str) -> float:
    """The widest line of a cell: its own lines (\\\\ inside a nested tabular, aligned or
    gathered) each counted."""
    inner = re.sub(r"\\begin\{(tabular|aligned|gathered|array)\}(\[[^]]*\])?(\{[^}]*\})?", "", cell)
    inner = re.sub(r"\\end\{(tabular|aligned|gathered|array)\}", "", inner)
    return max((len(_strip(line).strip()) for line in re.split(r"\\\\", inner)), default=0)


def _columns(spec: str) -> list:
    """A tabular's columns: ("p", fraction of the line) or ("l", None)."""
    spec = re.sub(r">\{[^}]*\}|<\{[^}]*\}|@\{[^}]*\}", "", spec)
    out = []
    for match in re.finditer(r"p\{([\d.]*)\\(?:linewidth|textwidth)\}|[lrc]", spec):
        out.append(("p", float(match.group(1) or 1)) if match.group(0).startswith("p") else ("l", None))
    return out


def estimated_widths(fragment: str, line: int = LINE_CHARACTERS) -> list:
    """[(characters, what)] of every tabular row and display formula of a fragment: its
    width in characters of the line (a row: its columns' widest cells, a p{} column its
    declared share of ``line``, 2.4 characters between columns)."""
    out = []
    body = fragment
    for match in re.finditer(r"^(?:\\noindent)?\\begin\{tabular\}(\[[^]]*\])?\{((?:[^{}]|\{[^{}]*\})*)\}(.*?)^\\end\{tabular\}",
                             body, re.M | re.S):
        columns = _columns(match.group(2))
        rows = [r for r in _split_top(match.group(3), r"\\") if _strip(r).strip()]
        widths = [0.0] * len(columns)
        for row in rows:
            for k, cell in enumerate(_split_top(row, "&")[:len(columns)]):
                kind, share = columns[k]
                widths[k] = max(widths[k], share * line if kind == "p" else _cell_width(cell))
        out.append((sum(widths) + 2.4 * len(columns), f"tabular {match.group(2)}"))
    for match in re.finditer(r"^\\\[(.*?)\\\]", body, re.M | re.S):
        out.append((_cell_width(match.group(1)), "display"))
    for match in re.finditer(r"^\\begin\{(gather\*|align\*|multline\*)\}(.*?)^\\end\{\1\}", body, re.M | re.S):
        out.append((_cell_width(match.group(2)), match.group(1)))
    return out


# -- the cases ---------------------------------------------------------------------------------

LONG = "sin(x)*exp(y)/(1 + x**2 + y**2) + log(1 + exp(x*y))*cos(x - y) + tanh(x*y**2)*atan(y/x)"
SIX = "x1*x2*x3 + sin(x4)*exp(x5) + x6**2*log(x1 + x2 + x3 + x4 + x5 + x6)"
SIX_AT = "x1=0.5,x2=1.5,x3=2.0,x4=0.3,x5=0.7,x6=1.1"


def cases() -> dict:
    """{command: {case: a function of nothing giving its LaTeX}}."""
    import diffcompare
    from diffcompare.lecture.steps import step_sweep
    from diffcompare.lecture.swell import swell

    def point(text):
        from diffcompare.problem.values import parse_point
        return parse_point(text)

    def compare(f, at, **options):
        return lambda: diffcompare.compare(f, at=point(at), repeat=1, **options).render("latex")

    def explain(f, at, **options):
        return lambda: diffcompare.explain(f, point(at), **options).render("latex")

    def steps(f, at):
        return lambda: step_sweep(f, point(at), variable="x", label=f).render("latex")

    def swell_case(family, ns, expressions, **options):
        return lambda: swell(family, ns, expressions=expressions, **options).render("latex")

    def graph(f, at):
        from diffcompare.render.graph import latex_report
        return lambda: latex_report(diffcompare.explain(f, point(at)))

    def audit(f, domain, **options):
        return lambda: diffcompare.audit(f, domain=domain, random=3, **options).render("latex")
    return {
        "graph": {
            "two variables": graph("sin(x)*exp(y)", "x=0.5,y=1.5"),
            "long expression": graph(LONG, "x=0.5,y=1.5"),
            "six variables": graph(SIX, SIX_AT),
        },
        "audit": {
            "one case": audit(LONG, {"x": (0.1, 2.0), "y": (0.1, 2.0)}, name="a long expression in x and y"),
            "a wrong gradient": audit("x**2", {"x": (-1.0, 1.0)}, grad=lambda x: 3 * x, name="x squared, wrong 3x"),
        },
        "compare": {
            "two variables": compare("sin(x)*exp(y)", "x=0.5,y=1.5"),
            "long expression": compare(LONG, "x=0.5,y=1.5"),
            "six variables": compare(SIX, SIX_AT),
            "vector variable": compare("sum(x**2)*exp(-sum(x))", "x=[0.5,1.5,2.0,0.3,0.7,1.1]"),
            "matrix variable": compare("sum(A**2)*prod(A) + log(sum(A))", "A=[[2,1,0.5],[1,3,1],[0.5,1,4]]"),
            "jacobian": compare("[x*y*z, sin(x)*exp(z), x**2 + y**2 + z**2, log(1 + x*y*z)]", "x=0.5,y=1.5,z=2.0"),
            "hessian": compare(SIX, SIX_AT, kind="hessian"),
            "many points": compare(LONG, "x=0.5,y=1.5", points=20, box={"x": (0.1, 2.0), "y": (0.1, 2.0)}),
        },
        "explain": {
            "two variables": explain("sin(x)*exp(y)", "x=0.5,y=1.5"),
            "long expression": explain(LONG, "x=0.5,y=1.5", check=True),
            "six variables": explain(SIX, SIX_AT),
            "vector variable": explain("sum(x**2)*exp(-sum(x))", "x=[0.5,1.5,2.0,0.3,0.7,1.1]"),
            "vector output": explain("[x*y, sin(x)*y]", "x=0.5,y=1.5", vector="1,2"),
        },
        "steps": {
            "two variables": steps("sin(x)*exp(y)", "x=0.5,y=1.5"),
            "long expression": steps(LONG, "x=0.5,y=1.5"),
        },
        "swell": {
            "logistic 1..4, expressions": swell_case("logistic", "1..4", 4),
            "logistic 1..6, expressions": swell_case("logistic", "1..6", 6),
            "sines 1..6, expressions": swell_case("sines", "1..6", 6),
            "nested-sin 1..6, expressions": swell_case("nested-sin", "1..6", 6),
            "rosenbrock 1..6, expressions": swell_case("rosenbrock", "1..6", 4),
            "mlp 1..3, expressions": swell_case("mlp", "1..3", 2),
            "template 1..5, expressions": swell_case("template", "1..5", 5, template="sin(y)*x + y"),
        },
    }


def measure(selected=None, keep=None) -> dict:
    """{command: {wrapper: {"widest": pt, "case": the widest's case, "boxes": n, "errors": n}}}."""
    fragments, commands = {}, {}
    for command, built in cases().items():
        for case, build in built.items():
            if selected and command not in selected:
                continue
            fragments[f"{command}: {case}"] = build()
            commands[f"{command}: {case}"] = command
    out = {}
    for wrapper in WRAPPERS:
        results = compile_fragments(fragments, wrapper, keep=keep)
        for name, r in results.items():
            row = out.setdefault(commands[name], {}).setdefault(
                wrapper, {"widest": 0.0, "case": "—", "boxes": 0, "errors": 0, "estimate": 0.0})
            row["boxes"] += r["boxes"]
            if keep and r["boxes"]:
                print(f"{wrapper}: {name}: {r['boxes']} overfull, widest {r['widest']:.1f} pt", file=sys.stderr)
            row["errors"] += len(r["errors"])
            if r["widest"] > row["widest"]:
                row["widest"], row["case"] = r["widest"], name.split(": ", 1)[1]
            for line in r["errors"]:
                print(f"{wrapper}: {name}: error: {line}", file=sys.stderr)
    for name, text in fragments.items():
        widest = max((w for w, _ in estimated_widths(text)), default=0.0)
        for wrapper in WRAPPERS:
            row = out[commands[name]][wrapper]
            row["estimate"] = max(row["estimate"], widest)
    return out


def table_lines(result) -> list:
    lines = ["| command | wrapper | widest overfull box | in | overfull boxes | errors | widest line (estimate, chars) |",
             "|---|---|---:|---|---:|---:|---:|"]
    for command, wrappers in result.items():
        for wrapper, r in wrappers.items():
            lines.append(f"| {command} | {wrapper} | {r['widest']:.1f} pt | {r['case'] if r['widest'] else '—'} | "
                         f"{r['boxes']} | {r['errors']} | {r['estimate']:.0f} |")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--command", action="append", help="only this command (repeatable)")
    parser.add_argument("--keep", metavar="DIR", help="keep the documents, logs and PDFs in DIR")
    args = parser.parse_args(argv)
    if pdflatex() is None:
        print("pdflatex is not installed (apt-get install texlive-latex-recommended texlive-latex-extra)")
        return 1
    print("\n".join(table_lines(measure(args.command, args.keep))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
