"""The embedded Neo4j: its launcher, the Java it runs on, its process, waiting for it, and the
Browser kit. Imports graphmem._base only."""
