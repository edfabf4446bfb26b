// name: scale_memories
// How many memories the whole store holds, every tenant together (the scale benchmark's
// --resume starts from what an earlier run of it left on the same server).
MATCH (m:Memory)
RETURN count(m) AS memories
