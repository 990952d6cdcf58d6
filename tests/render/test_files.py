"""A report file is written whole or not at all, wherever its path leads: a symbolic link's
target, a FIFO with a reader (and one without: an error, not a hang), a writable file in a
folder the user cannot write."""

import os
import stat
import sys
import threading
import time

import pytest

import diffcompare.render.files as files
from diffcompare.render.files import write_whole

posix = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and permissions of POSIX")


def test_a_regular_file_is_replaced_whole_and_keeps_its_mode(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("old")
    path.chmod(0o640)
    write_whole(str(path), "new")
    assert path.read_text() == "new" and stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]         # nothing left beside it


def test_a_symbolic_link_stays_a_link_and_its_target_is_replaced(tmp_path):
    target = tmp_path / "reports" / "r.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    write_whole(str(link), b"new")
    assert link.is_symlink() and target.read_text() == "new"


@posix
def test_a_fifo_is_written_to_its_reader(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    write_whole(str(fifo), "report")
    reader.join(10)
    assert got == ["report"]


@posix
def test_a_fifo_nobody_reads_is_an_error_after_the_wait_not_a_hang(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "READER_WAIT", 0.3)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    start = time.monotonic()
    with pytest.raises(OSError, match="nothing reads this FIFO"):
        write_whole(str(fifo), "report")
    assert time.monotonic() - start < 5


@posix
@pytest.mark.skipif(sys.platform.startswith("linux") and os.geteuid() == 0, reason="root writes any folder")
def test_a_writable_file_in_a_read_only_folder_is_updated_in_place(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("old")
    tmp_path.chmod(0o555)
    try:
        write_whole(str(path), "new")
        assert path.read_text() == "new"
    finally:
        tmp_path.chmod(0o755)


def test_a_folder_is_refused(tmp_path):
    with pytest.raises(IsADirectoryError, match="give a file name"):
        write_whole(str(tmp_path), "x")


def test_where_no_new_file_can_go_beside_it_the_file_is_updated_in_place(tmp_path, monkeypatch):
    # the folder closed to new files, as for a user without write permission on it (root
    # writes any folder, so the refusal is the folder's answer, given here directly)
    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files.tempfile, "NamedTemporaryFile", refused)
    path = tmp_path / "r.json"
    path.write_text("a longer old report")
    write_whole(str(path), "new")
    assert path.read_text() == "new"
    with pytest.raises(PermissionError, match="no permission to create a file in"):
        write_whole(str(tmp_path / "absent.json"), "new")
