"""Bringing memories back: the recall statement's parameters, full-text queries, fusion, the
relevance floor and the prompt block. Imports graphmem._base only."""
