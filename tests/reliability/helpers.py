"""Direct Cypher views of what a tenant holds, for tests that must see past graphmem's API."""

from __future__ import annotations


def footprint(driver, tenant: str) -> tuple[int, int]:
    """(nodes, relationships touching them) carrying ``tenant``: a failed write must change neither."""
    records, _, _ = driver.execute_query(
        "MATCH (n {tenant: $t}) OPTIONAL MATCH (n)-[r]-() RETURN count(DISTINCT n) AS nodes, count(DISTINCT r) AS rels",
        {"t": tenant})
    return records[0]["nodes"], records[0]["rels"]
