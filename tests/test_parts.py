"""Oversized groups split into parts of related tools, each under the size cap."""

from ankit.discovery.parts import PART_CAP, split_group


def sizes_of(names: list[str], each: int) -> dict[str, int]:
    return dict.fromkeys(names, each)


NAMES = ["mcp__db__create-collection", "mcp__db__drop-collection", "mcp__db__list-collections",
         "mcp__db__rename-collection", "mcp__db__create-index", "mcp__db__drop-index", "mcp__db__list-indexes",
         "mcp__db__insert-many", "mcp__db__update-many", "mcp__db__delete-many", "mcp__db__find", "mcp__db__ping"]


def test_a_group_under_the_cap_stays_whole():
    assert split_group(NAMES, sizes_of(NAMES, 100)) == {"": NAMES}


def test_an_oversized_group_splits_by_the_words_its_names_share_each_part_under_the_cap():
    sizes = sizes_of(NAMES, 3000)
    parts = split_group(NAMES, sizes)
    assert all(sum(sizes[n] for n in members) <= PART_CAP for members in parts.values())
    assert sorted(n for members in parts.values() for n in members) == sorted(NAMES)  # each tool once
    assert {"collection", "index", "many"} <= set(parts)
    assert set(parts["collection"]) <= {n for n in NAMES if "collection" in n} | {"mcp__db__find", "mcp__db__ping"}
    assert split_group(list(reversed(NAMES)), sizes) == parts  # the same parts whatever the order


def test_one_tool_over_the_cap_gets_a_part_of_its_own():
    sizes = {**sizes_of(NAMES, 3000), "mcp__db__find": PART_CAP + 1}
    parts = split_group(NAMES, sizes)
    assert ["mcp__db__find"] in parts.values()
