-- The LangGraph server keeps its threads, runs and checkpoints in a database of its own
-- (DATABASE_URI); resin's own tables go to database resin (RESIN_DATABASE_URL).
CREATE DATABASE langgraph;
