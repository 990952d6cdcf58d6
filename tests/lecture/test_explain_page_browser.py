"""explain's web page in a real browser: headless Chromium opens page.html#step=1 and
page.html#step=2 and gives back the DOM its script made. The highlighted node, the arrows
it sends along and the rows of the adjoint table filled so far agree with the walk of
sin(x)·x derived by hand: the product (step 1) sends x = 2 to sin (step 2) and sin 2 to x
(step 3); sin sends 2 cos 2 to x; x's gradient is sin 2 + 2 cos 2. Skipped where Chromium
is not installed (apt-get install chromium)."""

import math
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

import diffcompare
from diffcompare.render.explain import html_report

BROWSER = next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome")
                if shutil.which(name)), None)
pytestmark = pytest.mark.skipif(BROWSER is None, reason="Chromium is not installed")


class Dom(HTMLParser):
    """The elements of a serialized DOM: (tag, attributes, their text)."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.done, self.stack = [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.stack.append((tag, dict(attrs), []))

    def handle_startendtag(self, tag, attrs):
        self.done.append((tag, dict(attrs), ""))

    def handle_data(self, data):
        for _, _, text in self.stack:
            text.append(data)

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, attributes, text = self.stack.pop()
            self.done.append((open_tag, attributes, "".join(text)))
            if open_tag == tag:
                break

    def find(self, tag=None, cls=None, **attributes):
        return [(t, a, text) for t, a, text in self.done
                if (tag is None or t == tag) and (cls is None or cls in (a.get("class") or "").split())
                and all(a.get(k.replace("_", "-")) == v for k, v in attributes.items())]


QUIET = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
         "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--mute-audio"]


def _at_steps(path, steps):
    """{step: the DOM after the page opened at #step=...}, the browsers run side by side."""
    launched = {step: subprocess.Popen([BROWSER, *QUIET, "--dump-dom", f"{path.as_uri()}#step={step}"],
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for step in steps}
    doms = {}
    for step, process in launched.items():
        out, err = process.communicate(timeout=90)
        assert process.returncode == 0 and "</html>" in out, err[-2000:]
        doms[step] = Dom(out)
    return doms


def _numbers(text):
    return [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)]


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    path = tmp_path_factory.mktemp("page") / "walk.html"
    path.write_text(html_report(diffcompare.explain("sin(x)*x", at={"x": 2.0})), encoding="utf-8")
    return _at_steps(path, (1, 2))


def test_the_page_opens_at_the_step_its_address_names(pages):
    for step, dom in pages.items():
        current = [(t, a, text) for t, a, text in dom.find("g", "current") if "node" in a["class"].split()]
        assert len(current) == 1 and current[0][1]["data-step"] == str(step)
        assert current[0][1]["id"].endswith(f"-n{step}")
        assert dom.find("span", "dc-counter")[0][2] == f"step {step} of 3"
        shown = [a["data-step"] for _, a, _ in dom.find("section", "card") if "hidden" not in a]
        assert shown == [str(step)]


def test_the_arrows_of_the_current_node_carry_what_it_sends(pages):
    hot = {int(a["data-to"]): _numbers(text)[0] for _, a, text in pages[1].find("g", "edge") if "current" in a["class"]}
    assert hot == pytest.approx({2: 2.0, 3: math.sin(2)}, rel=1e-3)      # labels show 4 digits
    hot = {int(a["data-to"]): _numbers(text)[0] for _, a, text in pages[2].find("g", "edge") if "current" in a["class"]}
    assert hot == pytest.approx({3: 2 * math.cos(2)}, rel=1e-3)


def test_the_adjoint_table_fills_in_as_the_walk_goes(pages):
    def rows(dom):
        return {int(a["data-step"]): (a["class"], text) for _, a, text in dom.find("tr") if "data-step" in a}
    at_1, at_2 = rows(pages[1]), rows(pages[2])
    assert [at_1[k][0] for k in (1, 2, 3)] == ["current", "future", "future"]
    assert [at_2[k][0] for k in (1, 2, 3)] == ["done", "current", "future"]
    # x's row at step 1: only the product's sin 2 has arrived; at step 2 sin's 2 cos 2 too
    partial_1 = pages[1].find("span", "partial")
    partial_2 = pages[2].find("span", "partial")
    x_so_far_1 = [text for _, _, text in partial_1 if "(from 1)" in text and "so far" in text]
    assert len(x_so_far_1) == 1 and _numbers(x_so_far_1[0])[:2] == pytest.approx([math.sin(2), 1], rel=1e-5)
    x_at_2 = [text for _, _, text in partial_2 if "(from 2)" in text]
    assert len(x_at_2) == 1 and "all arrived" in x_at_2[0]
    assert _numbers(x_at_2[0])[:4] == pytest.approx([math.sin(2), 1, 2 * math.cos(2), 2], rel=1e-5)
    # the boxes: the grad of what has been reached, '…' for what has not
    grads = {a.get("data-step"): text for _, a, text in pages[2].find("g", "node")}
    assert "grad 2" in grads["2"] and "grad …" in grads["3"]
    final = pages[2].find("span", "full")
    assert any(_numbers(t)[-1:] == pytest.approx([math.sin(2) + 2 * math.cos(2)], rel=1e-5) for _, _, t in final)
