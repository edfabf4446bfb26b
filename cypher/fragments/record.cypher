// fragment: record
// A memory's properties as graphmem's records have them, from a node or property map
// __node__: everything but the embedding and the lookup keys, temporal values as ISO-8601
// text (all UTC; the driver's DateTime decoding cost more than the query).
__node__ {.id, .kind, .tenant, .scope, .text, .provenance, .status, .sensitivity, .importance, .tags, .userId,
  .agentId, .sessionId, .invalidationReason, .statusLog, .subject, .subjectName, .predicate, .object, .objectName, .singleValued,
  .validFromStated,
  .role, .source, .speaker, .name, .type, .aliases, .propertiesJson, .salience, .cites, .trigger, .condition,
  .priority, .steps, .variables, .successCriteria, .successCount, .failureCount, .originalValue,
  .correctedValue, .field, .reason, .entityKey, .originalInput, .runId, .reasoning, .decisionType,
  .context, .alternatives, .confidence, .outcome, .quality, .outcomeLog, .owner, .label,
  createdAt: toString(__node__.createdAt), invalidatedAt: toString(__node__.invalidatedAt),
  statusChangedAt: toString(__node__.statusChangedAt), validFrom: toString(__node__.validFrom),
  validTo: toString(__node__.validTo), occurredAt: toString(__node__.occurredAt),
  observedFrom: toString(__node__.observedFrom),
  lastCorroboratedAt: toString(__node__.lastCorroboratedAt), lastUsedAt: toString(__node__.lastUsedAt),
  outcomeAt: toString(__node__.outcomeAt),
  coversFrom: toString(__node__.coversFrom), coversTo: toString(__node__.coversTo),
  refersTo: [moment IN coalesce(__node__.refersTo, []) | toString(moment)]}
