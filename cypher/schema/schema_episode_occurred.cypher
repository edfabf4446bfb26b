// name: schema_episode_occurred
// creates: episode_occurred
// Range index: when an episode happened.
CREATE INDEX episode_occurred IF NOT EXISTS FOR (n:Episode) ON (n.occurredAt)
