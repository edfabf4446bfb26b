"""A user's profile on ``AsyncMemory``: typed fields held by single-valued facts about the
user, so each has a history and can be read at any point of either time axis (contract
§10). ``graphmem/_sync/profile.py`` is generated from this file by ``tools/unasync.py``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .._base import scopes
from .._base import validate as check
from .._base.models import Fact, Provenance
from .._base.traced import instrument
from .._learning import profile as _profile
from .._learning.profile import Profile
from .._learning.prompts import messages_block
from .backend import AsyncStore
from .facts import AsyncFacts
from .llm import AsyncLlmCaller, check_llm
from .sessions import AsyncSessions


@instrument("graphmem", names=("profile", "set_profile", "learn_profile", "profile_history"))
class AsyncProfiles:
    """A user's profile: facts about them read as fields, set by hand or learned by a model (``AsyncMemory`` hands the public calls to it)."""

    def __init__(self, store: AsyncStore, facts: AsyncFacts, sessions: AsyncSessions, llm: AsyncLlmCaller) -> None:
        self._store = store
        self._facts = facts
        self._sessions = sessions
        self._llm = llm

    async def profile(self, user_id: str, *, scope: str, as_of: datetime | None = None,
                      valid_at: datetime | None = None) -> Profile:
        """The profile of ``user_id`` visible in ``scope`` as the memory believed it at
        ``as_of`` and as it was at ``valid_at`` (both default to now). A value a person
        gave outranks an extracted one for the same field."""
        about = _profile.subject(user_id)
        scopes.check_path(scope)
        facts = await self._facts.facts(scope=scope, subject=about, as_of=as_of, valid_at=valid_at)
        return _profile.build(user_id, facts)

    async def set_profile(self, user_id: str, *, scope: str, provenance: Provenance | str = Provenance.USER,
                          valid_from: datetime | None = None, **fields: str) -> Profile:
        """Set profile fields of ``user_id`` in ``scope`` in one transaction: each is a
        single-valued fact (``profile_<field>``) that supersedes the field's earlier value.
        Standard fields are name, role, timezone, language and location; any other
        lowercase name is a custom field. ``provenance`` is ``user`` by default (``manual``
        when an operator sets it); an extracted value never ends a person's. Returns the
        profile as it now reads."""
        check.identifier(user_id, "user_id")
        path = scopes.check_path(scope)
        await self._facts.remember_many(_profile.items(user_id, fields, scope=path, provenance=provenance,
                                                valid_from=valid_from))
        return await self.profile(user_id, scope=path)

    async def learn_profile(self, user_id: str, *, scope: str, session_id: str, llm: Any,
                            window: int = 50) -> Profile:
        """Fill the profile of ``user_id`` from the newest ``window`` messages of
        ``session_id``: one structured call to ``llm`` (any langchain-core chat model);
        each field it reports is written with provenance ``extraction``, derived from
        those messages, unless it is already the current value or a person gave the
        field's value (a person's value is never replaced by extraction). Returns the
        profile as it now reads."""
        about = _profile.subject(user_id)
        path = scopes.check_path(scope)
        check_llm(llm)
        messages = await self._sessions.messages(session_id, scope=path, max_messages=window)
        if not messages:
            return await self.profile(user_id, scope=path)
        current = _profile.chosen(await self._facts.facts(scope=path, subject=about))
        conversation = messages_block([(m.role, m.text) for m in messages])
        draft = await self._llm.ask(llm, _profile.ProfileDraft,
                                    [("system", _profile.LEARN_SYSTEM), ("human", conversation)],
                                    purpose="learn_profile")
        fields = _profile.learned(draft, current)
        if fields:
            await self._facts.remember_many(_profile.items(user_id, fields, scope=path, provenance=Provenance.EXTRACTION,
                                                    valid_from=None, derived_from=[m.id for m in messages]))
        return await self.profile(user_id, scope=path)

    async def profile_history(self, user_id: str, field: str, *, scope: str) -> list[Fact]:
        """Every value the field has had (believed or not), oldest valid time first, each
        with who superseded it, why and when."""
        return await self._facts.history(subject=_profile.subject(user_id), predicate=_profile.predicate(field),
                                  scope=scope)
