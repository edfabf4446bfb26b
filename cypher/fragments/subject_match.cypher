// fragment: subject_match
// Whether memory __node__ is about the subject a caller named ($subject, null for any):
// the same id or literal, the same literal up to case and accents ($subjectKey), or an
// entity visible in $chain whose name or alias folds to $subjectKey.
($subject IS NULL OR __node__.subject = $subject OR __node__.subjectKey = $subjectKey
   OR EXISTS {
     MATCH (__node__)-[:ABOUT {role: 'subject'}]->(named:Entity)
     WHERE named.scope IN $chain
       AND $subjectKey IN coalesce(named.foldKeys, [named.nameKey] + coalesce(named.aliasKeys, []))
   })
