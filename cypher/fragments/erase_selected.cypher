// fragment: erase_selected
// Whether memory __node__ is named by an erase request: every given selector matches
// ($id: its id; $userId: the user it belongs to, or for a core note the owner it is filed
// under; $sessionId: the conversation it was written in; $scope: that scope or any scope
// below it). A null selector matches everything; a
// missing property never matches (false, not null, so the fragment can be negated).
coalesce(($id IS NULL OR __node__.id = $id)
  AND ($userId IS NULL OR __node__.userId = $userId OR (__node__:Note AND __node__.owner = $userId))
  AND ($sessionId IS NULL OR __node__.sessionId = $sessionId)
  AND ($scope IS NULL OR __node__.scope = $scope OR __node__.scope STARTS WITH $scope + '/'), false)
