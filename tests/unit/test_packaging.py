"""The built wheel carries the Cypher templates and the launcher project."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import graphmem

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_ships_templates_and_loads_them_in_a_fresh_venv(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(ROOT)],
                   check=True, capture_output=True)
    wheel = next(dist.glob("graphmem-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {n.removeprefix("graphmem/cypher/") for n in names if n.startswith("graphmem/cypher/")}
    folder = graphmem._base.templates.template_dir()
    assert shipped == {str(p.relative_to(folder)) for p in folder.rglob("*.cypher")}
    assert {"schema/schema_fulltext.cypher", "fragments/record.cypher"} <= shipped
    assert "graphmem/embedded/pom.xml" in names
    assert "graphmem/browser/style.grass" in names and "graphmem/browser/queries/timeline.cypher" in names
    venv = tmp_path / "venv"
    # no pip inside the fresh venv (ensurepip costs seconds): this interpreter's pip installs into it
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--quiet", "--no-deps", "--no-index",
                    str(wheel)], check=True)
    # dependencies come from this interpreter's site-packages, after the fresh venv's own
    site = subprocess.run([str(py), "-c", "import site; print(site.getsitepackages()[0])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "zz_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    probe = textwrap.dedent("""
        import graphmem, graphmem._base.templates as t
        print(graphmem.__file__)
        print(t.template_dir())
        print(t.get("fact_create").parameters)
        import graphmem._server.browser as b
        print(b.kit_dir())
    """)
    out = subprocess.run([str(py), "-I", "-c", probe], check=True, capture_output=True, text=True, cwd=tmp_path).stdout.splitlines()
    assert out[0].startswith(str(venv)), out[0]
    assert out[1].startswith(str(venv)) and out[1].endswith("graphmem/cypher")
    assert "rows" in out[2] and "tenant" in out[2]
    assert out[3].startswith(str(venv)) and out[3].endswith("graphmem/browser")
