"""Layout files for the CLI tests: the article's transpose pair, and files that are bad in
every way a user can get one wrong.
"""

from __future__ import annotations

import pytest

from linlayout import examples

from tests.support import article_memory, write_file


#: Row-major memory for the 16×32 transpose: store degree 1, load degree 16.
ROW_MAJOR = article_memory(None)


@pytest.fixture
def transpose_files(tmp_path):
    ex = examples.get("transpose")
    return {
        "store": write_file(tmp_path, "store.json", ex.store.to_dict()),
        "load": write_file(tmp_path, "load.json", ex.load.to_dict()),
        "row_major": write_file(tmp_path, "row_major.json", ROW_MAJOR.to_dict()),
    }


THREE_D = {"bases": {"register": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]},
           "out_dims": {"dim0": 2, "dim1": 2, "dim2": 2}}


@pytest.fixture
def bad_files(tmp_path, transpose_files):
    f = dict(transpose_files)
    f["invalid_json"] = write_file(tmp_path, "bad.json", "{not json")
    f["not_utf8"] = str(tmp_path / "bin.json")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00")
    f["list"] = write_file(tmp_path, "list.json", [1, 2, 3])
    f["bases_not_list"] = write_file(tmp_path, "b1.json", {"bases": {"lane": 5}, "out_dims": {"dim0": 4}})
    f["wrong_len"] = write_file(tmp_path, "b2.json", {"bases": {"lane": [[1, 2]]}, "out_dims": {"dim0": 4}})
    f["bad_size"] = write_file(tmp_path, "b3.json", {"bases": {"lane": [[1]]}, "out_dims": {"dim0": 3}})
    f["no_out_dims"] = write_file(tmp_path, "b4.json", {"bases": {}})
    f["singular"] = write_file(tmp_path, "sing.json", {
        "bases": {"offset": [[0, 1], [0, 1], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0],
                             [8, 0]]},
        "out_dims": {"dim0": 16, "dim1": 32}})
    f["small"] = write_file(tmp_path, "small.json", {"bases": {"register": [[1, 0]], "lane": [[0, 1]]},
                                                "out_dims": {"dim0": 2, "dim1": 2}})
    f["three_d"] = write_file(tmp_path, "three.json", THREE_D)
    f["missing"] = str(tmp_path / "does-not-exist.json")
    return f
