"""Every Python code block in docs/ runs, so the documentation stays true."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import runpy
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
README = DOCS.parent / "README.md"
EXAMPLES = DOCS / "examples"
_BLOCK = re.compile(r"^\.\. code-block:: python\n(?:[ \t]+:[^\n]*\n)*\n((?:[ \t]+[^\n]*\n|\n)+)", re.M)
_MD_BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def _rst_blocks(text: str) -> list[str]:
    out = []
    for m in _BLOCK.finditer(text):
        lines = m.group(1).splitlines()
        indent = min(len(ln) - len(ln.lstrip()) for ln in lines if ln.strip())
        out.append("\n".join(ln[indent:] for ln in lines))
    return out


def _pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.rst") if "_build" not in p.parts)


def _read_pyproject(path: Path) -> dict[str, dict[str, object]]:
    """The ``[section] key = value`` pairs of a simple pyproject.toml (tomllib needs 3.11)."""
    out: dict[str, dict[str, object]] = {}
    section = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line.strip("[]").strip()
            continue
        key, _, value = line.partition("=")
        try:
            parsed: object = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            parsed = value.strip()
        out.setdefault(section, {})[key.strip()] = parsed
    return out


@pytest.fixture
def example_packages(tmp_path, monkeypatch) -> Iterator[None]:
    """Make the plugin packages in docs/examples/*/ importable, with their entry points visible to
    importlib.metadata, as ``pip install docs/examples/<package>`` would (unless installed)."""
    site = tmp_path / "site-packages"
    sources: list[Path] = []
    for pyproject in sorted(EXAMPLES.glob("*/pyproject.toml")):
        meta = _read_pyproject(pyproject)
        name, version = str(meta["project"]["name"]), str(meta["project"]["version"])
        try:
            importlib.metadata.distribution(name)
            continue  # really installed: use that
        except importlib.metadata.PackageNotFoundError:
            pass
        dist_info = site / f"{name.replace('-', '_')}-{version}.dist-info"
        dist_info.mkdir(parents=True)
        (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        groups = [
            f"[{section.removeprefix('project.entry-points.')}]\n"
            + "".join(f"{k} = {v}\n" for k, v in entries.items())
            for section, entries in meta.items() if section.startswith("project.entry-points.")
        ]
        (dist_info / "entry_points.txt").write_text("\n".join(groups))
        sources.append(pyproject.parent / "src")
    for src in sources:
        monkeypatch.syspath_prepend(str(src))
    if sources:
        monkeypatch.syspath_prepend(str(site))
    yield
    for mod_name, mod in list(sys.modules.items()):
        where = getattr(mod, "__file__", None) or ""
        if any(where.startswith(str(src)) for src in sources):
            del sys.modules[mod_name]


#: Pages whose examples need an optional extra: (module, extra) pairs.
PAGE_NEEDS: dict[str, tuple[tuple[str, str], ...]] = {"dra.rst": (("celpy", "dra"),),
                                                      "kube.rst": (("kubernetes", "kube"),),
                                                      "tracing.rst": (("opentelemetry.sdk", "otel"),)}


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(DOCS)))
@pytest.mark.usefixtures("example_packages")
def test_rst_code_blocks_run(page: Path, tmp_path, monkeypatch):
    """All python code blocks of one page run in order in a shared namespace."""
    for module, extra in PAGE_NEEDS.get(page.name, ()):
        pytest.importorskip(module, reason=f"{page.name} needs the {extra} extra")
    monkeypatch.chdir(tmp_path)
    ns: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    for i, block in enumerate(_rst_blocks(page.read_text())):
        try:
            exec(compile(block, f"{page.name}[block {i}]", "exec"), ns)
        except Exception as exc:  # pragma: no cover - failure path
            pytest.fail(f"{page.name} block {i} failed: {exc!r}\n{block}")


def test_readme_python_blocks_run(tmp_path, monkeypatch):
    """The README's python example runs."""
    monkeypatch.chdir(tmp_path)
    blocks = _MD_BLOCK.findall(README.read_text())
    assert blocks, "README.md has no python example"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})


@pytest.mark.parametrize(
    "script",
    sorted((DOCS / "examples").glob("*.py")) if (DOCS / "examples").is_dir() else [],
    ids=lambda p: p.name,
)
def test_example_scripts_run(script: Path, monkeypatch):
    """Runnable examples in docs/examples run to completion."""
    monkeypatch.setattr(sys, "argv", [str(script)])
    monkeypatch.syspath_prepend(str(script.parent))
    runpy.run_path(str(script), run_name="__main__")


_DIRECTIVE = re.compile(
    r"^\.\. (?:auto)?(?:class|exception|function|data|module|currentmodule)::\s+(\S+)", re.M
)


def _documented(text: str) -> dict[str, set[str]]:
    """Names documented in an API page, per module (``.. module::`` sets the module)."""
    out: dict[str, set[str]] = {}
    module = ""
    for m in _DIRECTIVE.finditer(text):
        directive, target = m.group(0).split("::")[0], m.group(1)
        if directive.endswith(("module", "currentmodule")):
            module = target
            continue
        mod, _, name = target.rpartition(".")
        out.setdefault(mod or module, set()).add(name)
    return out


@pytest.mark.parametrize("module_name", ["schedframe", "schedframe.testing", "schedframe.kube"])
def test_api_reference_lists_every_public_name(module_name: str):
    """docs/api.rst documents every name in the module's __all__."""
    import importlib

    module = importlib.import_module(module_name)
    documented = _documented((DOCS / "api.rst").read_text()).get(module_name, set())
    public = {
        name for name in module.__all__
        if type(getattr(module, name)).__name__ != "_Feature"  # not ``from __future__ import annotations``
    }
    if module_name == "schedframe.testing":
        public.discard("FakeClock")  # a re-export, documented as schedframe.FakeClock
    assert sorted(public - documented) == []


def test_version_tags_agree_with_the_version_and_the_changelog() -> None:
    """``versionadded``/``versionchanged`` name either the version being made (``_version.py``,
    whose changes are CHANGELOG's ``Unreleased``) or a version CHANGELOG lists as released."""
    root = DOCS.parent
    version_text = (root / "src/schedframe/_version.py").read_text(encoding="utf-8")
    match = re.search(r'__version__ = "(\d+\.\d+\.\d+)', version_text)
    assert match, version_text
    making = match.group(1)
    changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in changelog
    released = set(re.findall(r"^## \[(\d+\.\d+\.\d+)\]", changelog, flags=re.M))
    assert making not in released, f"{making} is in _version.py as a development version but released"
    tagged: dict[str, set[str]] = {}
    for path in [*(root / "src").rglob("*.py"), *DOCS.glob("*.rst")]:
        for tag in re.findall(r"\.\. version(?:added|changed):: (\S+)", path.read_text(encoding="utf-8")):
            tagged.setdefault(tag, set()).add(str(path.relative_to(root)))
    wrong = {tag: sorted(paths)[:3] for tag, paths in tagged.items() if tag not in released | {making}}
    assert not wrong, wrong


def test_pages_named_in_the_code_exist() -> None:
    """Docstrings and messages that point at ``docs/<page>.rst`` point at a page that exists."""
    root = DOCS.parent
    named = {m for path in (root / "src").rglob("*.py")
             for m in re.findall(r"docs/([\w-]+)\.rst", path.read_text(encoding="utf-8"))}
    assert named, "no page named: the pattern is stale"
    assert sorted(n for n in named if not (DOCS / f"{n}.rst").is_file()) == []
