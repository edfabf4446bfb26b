"""LangChain on graphmem: the retriever, the memory tools and the chat history, against a
real Neo4j, with langchain-tests' standard suites."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables.history import RunnableWithMessageHistory
from langchain_core.tools import BaseTool
from langchain_tests.integration_tests import RetrieversIntegrationTests, ToolsIntegrationTests
from langchain_tests.unit_tests import ToolsUnitTests

from graphmem import AsyncMemory, ConfigurationError, Memory
from graphmem.integrations.langchain import GraphMemChatMessageHistory, GraphMemRetriever, memory_tools

from ..fakes import scripted, tool_answer
from .helpers import utc

SCOPE = "acme/support/alice"
NOTES = [
    "Alice lives in Berlin",
    "Alice prefers tea over coffee",
    "Alice's dog is called Rex",
    "Alice works at Acme as an engineer",
    "Alice is allergic to peanuts",
]


def seed(memory: Memory) -> None:
    for note in NOTES:
        memory.remember(note, scope=SCOPE, provenance="user")


# -- retriever --------------------------------------------------------------------------
class TestGraphMemRetrieverStandard(RetrieversIntegrationTests):
    @pytest.fixture(autouse=True)
    def _memory(self, memory):
        seed(memory)
        self.memory = memory

    @property
    def retriever_constructor(self) -> type[GraphMemRetriever]:
        return GraphMemRetriever

    @property
    def retriever_constructor_params(self) -> dict:
        return {"memory": self.memory, "scope": SCOPE}

    @property
    def retriever_query_example(self) -> str:
        return "what does Alice like?"


def test_retriever_documents_carry_the_record(memory):
    seed(memory)
    memory.remember("Bob lives in Rome", scope="acme/support/bob")
    retriever = GraphMemRetriever(memory=memory, scope=SCOPE, k=10)
    docs = retriever.invoke("Alice lives in Berlin")
    assert docs[0].page_content == "Alice lives in Berlin"
    meta = docs[0].metadata
    assert meta["kind"] == "fact" and meta["scope"] == SCOPE and meta["provenance"] == "user"
    assert meta["id"] == docs[0].id and meta["status"] == "active" and meta["valid_to"] is None
    assert set(meta["score_parts"]) >= {"semantic", "lexical", "recency"} and meta["score"] > 0
    assert meta["valid_from"] is not None and meta["citations"] == []
    assert "Bob lives in Rome" not in {d.page_content for d in docs}  # another scope stays out
    assert len(retriever.invoke("Alice", k=2)) == 2
    assert docs[0].metadata["score_parts"]["relevance"] == 1.0  # a full-text match of the question's words
    # min_relevance is recall's relevance floor: an unrelated question gets nothing unless it is lowered
    assert GraphMemRetriever(memory=memory, scope=SCOPE, k=10).invoke("qqq zzyzx") == []
    assert GraphMemRetriever(memory=memory, scope=SCOPE, k=10, min_relevance=-1.0).invoke("qqq zzyzx")
    episode_only = GraphMemRetriever(memory=memory, scope=SCOPE, kinds=["episode"]).invoke("Alice")
    assert episode_only == []


def test_retriever_travels_in_valid_time(memory):
    memory.remember("Alice lives in Paris", scope=SCOPE, subject="alice", predicate="lives_in", object="Paris",
                    valid_from=utc(2019))
    memory.remember("Alice lives in Berlin", scope=SCOPE, subject="alice", predicate="lives_in", object="Berlin",
                    valid_from=utc(2023))
    now = GraphMemRetriever(memory=memory, scope=SCOPE, k=1).invoke("where does Alice live")
    assert now[0].page_content == "Alice lives in Berlin"
    then = GraphMemRetriever(memory=memory, scope=SCOPE, k=1, valid_at=utc(2020)).invoke("where does Alice live")
    assert then[0].page_content == "Alice lives in Paris"
    assert then[0].metadata["valid_to"] == utc(2023).isoformat()


async def test_retriever_async_with_both_memories(memory, neo4j, embedder, tenant):
    seed(memory)
    sync_docs = await GraphMemRetriever(memory=memory, scope=SCOPE, k=3).ainvoke("dog")
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as amem:
        retriever = GraphMemRetriever(memory=amem, scope=SCOPE, k=3)
        async_docs = await retriever.ainvoke("dog")
        assert [d.id for d in async_docs] == [d.id for d in sync_docs]
        assert async_docs[0].page_content == "Alice's dog is called Rex"
        with pytest.raises(Exception, match="synchronously on an AsyncMemory"):
            retriever.invoke("dog")


def test_retriever_rejects_bad_settings(memory):
    with pytest.raises(ValueError):
        GraphMemRetriever(memory=memory, scope="a//b")
    with pytest.raises(ValueError):
        GraphMemRetriever(memory=memory, scope=SCOPE, kinds=["gossip"])
    with pytest.raises(ConfigurationError, match="Memory or AsyncMemory"):
        GraphMemRetriever(memory="not a memory", scope=SCOPE)


# -- tools ------------------------------------------------------------------------------
def _tool(memory: Memory, name: str, **bound) -> BaseTool:
    return {t.name: t for t in memory_tools(memory, scope=SCOPE, **bound)}[name]


class TestRecallToolUnit(ToolsUnitTests):
    @pytest.fixture(autouse=True)
    def _memory(self, memory):
        self.memory = memory

    @property
    def tool_constructor(self) -> BaseTool:
        return _tool(self.memory, "recall")

    @property
    def tool_invoke_params_example(self) -> dict:
        return {"query": "where does Alice live?", "k": 3}


class TestRecallToolIntegration(ToolsIntegrationTests):
    @pytest.fixture(autouse=True)
    def _memory(self, memory):
        seed(memory)
        self.memory = memory

    @property
    def tool_constructor(self) -> BaseTool:
        return _tool(self.memory, "recall")

    @property
    def tool_invoke_params_example(self) -> dict:
        return {"query": "where does Alice live?", "k": 3}


class TestRememberToolIntegration(ToolsIntegrationTests):
    @pytest.fixture(autouse=True)
    def _memory(self, memory):
        self.memory = memory

    @property
    def tool_constructor(self) -> BaseTool:
        return _tool(self.memory, "remember")

    @property
    def tool_invoke_params_example(self) -> dict:
        return {"text": "Alice lives in Berlin", "subject": "alice", "predicate": "lives_in", "object": "Berlin"}


class TestHistoryToolUnit(ToolsUnitTests):
    @pytest.fixture(autouse=True)
    def _memory(self, memory):
        self.memory = memory

    @property
    def tool_constructor(self) -> BaseTool:
        return _tool(self.memory, "history")

    @property
    def tool_invoke_params_example(self) -> dict:
        return {"id": "some-fact-id"}


class _OnAFact:
    """Standard tool suites for the tools that take the id of a stored fact."""

    name = ""

    @pytest.fixture(autouse=True)
    def _memory(self, memory):
        self.memory = memory
        self.fact = memory.remember("Alice lives in Paris", scope=SCOPE, subject="alice", predicate="lives_in",
                                    object="Paris")

    @property
    def tool_constructor(self) -> BaseTool:
        return _tool(self.memory, self.name)

    @property
    def tool_invoke_params_example(self) -> dict:
        if self.name == "correct":
            return {"id": self.fact.id, "corrected_text": "Alice lives in Lyon", "object": "Lyon"}
        return {"id": self.fact.id}


class TestForgetToolUnit(_OnAFact, ToolsUnitTests):
    name = "forget"


class TestForgetToolIntegration(_OnAFact, ToolsIntegrationTests):
    name = "forget"


class TestCorrectToolUnit(_OnAFact, ToolsUnitTests):
    name = "correct"


class TestCorrectToolIntegration(_OnAFact, ToolsIntegrationTests):
    name = "correct"


class TestHistoryToolIntegration(_OnAFact, ToolsIntegrationTests):
    name = "history"


def _id(text: str) -> str:
    return text.split("[", 1)[1].split("]", 1)[0]


def test_tools_round_trip_with_ids(memory):
    tools = {t.name: t for t in memory_tools(memory, scope=SCOPE, user_id="alice", session_id="chat-1")}
    assert set(tools) == {"remember", "recall", "forget", "correct", "history"}
    out = tools["remember"].invoke({"text": "Alice lives in Paris", "subject": "alice", "predicate": "lives_in",
                                    "object": "Paris"})
    paris = _id(out)
    stored = memory.get(paris)
    assert stored.scope == SCOPE and stored.user_id == "alice" and stored.session_id == "chat-1"
    assert stored.provenance.value == "user"
    recalled = tools["recall"].invoke({"query": "where does Alice live?"})
    assert recalled.splitlines()[0].startswith(f"[{paris}] fact")
    fixed = tools["correct"].invoke({"id": paris, "corrected_text": "Alice lives in Lyon", "object": "Lyon"})
    lyon = fixed.split("-> [", 1)[1].split("]", 1)[0]
    assert memory.get(lyon).object == "Lyon" and memory.get(paris).invalidation_reason == "corrected"
    history = tools["history"].invoke({"id": lyon})
    assert history.splitlines()[0].startswith(f"[{paris}]") and f"corrected by [{lyon}]" in history
    assert tools["forget"].invoke({"id": lyon}) == f"Forgot [{lyon}]."
    assert "No memories" in tools["recall"].invoke({"query": "Lyon"}) or lyon not in tools["recall"].invoke({"query": "Lyon"})
    assert "already forgotten" in tools["forget"].invoke({"id": lyon})


def test_a_model_cannot_reach_another_scope_or_tenant(memory, neo4j, embedder, tenant):
    tools = {t.name: t for t in memory_tools(memory, scope=SCOPE)}
    bob = memory.remember("Bob's PIN is 1234", scope="acme/support/bob")
    shared = memory.remember("Acme's office opens at 9", scope="acme")
    with Memory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant + "-other", embedder=embedder) as other:
        foreign = other.remember("Alice lives in Oslo", scope=SCOPE)
        # arguments naming a scope or tenant are refused before anything runs
        for args in ({"query": "PIN", "scope": "acme/support/bob"}, {"query": "PIN", "tenant": "x"}):
            refused = tools["recall"].invoke(args)
            assert refused.startswith("Invalid arguments") and "not an argument of this tool" in refused
        refused = tools["remember"].invoke({"text": "x", "scope": "acme/support/bob"})
        assert "not an argument" in refused
        assert {f.id for f in memory.facts(scope="acme/support/bob")} == {bob.id, shared.id}  # nothing new
        # a tool call from the model, as an agent would run it
        call = {"name": "recall", "args": {"query": "PIN 1234", "scope": "acme/support/bob"}, "id": "c1",
                "type": "tool_call"}
        assert "1234" not in tools["recall"].invoke(call).content
        assert "1234" not in tools["recall"].invoke({"query": "Bob PIN 1234"})
        assert "Oslo" not in tools["recall"].invoke({"query": "Alice lives in Oslo"})
        # ids from another scope, a shared ancestor, or another tenant cannot be changed
        for rid in (bob.id, shared.id, foreign.id):
            assert "can be changed here" in tools["forget"].invoke({"id": rid})
            assert "can be changed here" in tools["correct"].invoke({"id": rid, "corrected_text": "hacked"})
        assert "visible here" in tools["history"].invoke({"id": bob.id})
        assert "visible here" in tools["history"].invoke({"id": foreign.id})
        assert memory.get(bob.id).invalidated_at is None and memory.get(shared.id).invalidated_at is None
        assert other.get(foreign.id).invalidated_at is None
        assert memory.get(foreign.id) is None


def test_tool_errors_come_back_as_text(memory):
    tools = {t.name: t for t in memory_tools(memory, scope=SCOPE)}
    assert "text" in tools["remember"].invoke({"text": "   "})  # graphmem names the field
    assert "k" in tools["recall"].invoke({"query": "x", "k": 99})
    assert "subject and predicate go together" in tools["remember"].invoke({"text": "x", "subject": "alice"})
    schema = tools["remember"].args_schema.model_json_schema()
    assert schema["additionalProperties"] is False and "scope" not in schema["properties"]


async def test_tools_async_on_an_async_memory(neo4j, schema, embedder, tenant):
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as amem:
        tools = {t.name: t for t in memory_tools(amem, scope=SCOPE)}
        out = await tools["remember"].ainvoke({"text": "Alice plays chess"})
        assert (await amem.get(_id(out))).text == "Alice plays chess"
        assert _id(out) in await tools["recall"].ainvoke({"query": "chess"})
        assert await tools["forget"].ainvoke({"id": _id(out)}) == f"Forgot [{_id(out)}]."


# -- chat history -----------------------------------------------------------------------
def test_chat_history_round_trip(memory):
    history = GraphMemChatMessageHistory(memory, "chat-7", scope=SCOPE, user_id="alice")
    history.add_messages([HumanMessage("Hi, I'm Alice"), AIMessage("Hello Alice!"), AIMessage("")])
    history.add_user_message("I live in Berlin")
    messages = history.messages
    assert [type(m).__name__ for m in messages] == ["HumanMessage", "AIMessage", "HumanMessage"]
    assert [m.content for m in messages] == ["Hi, I'm Alice", "Hello Alice!", "I live in Berlin"]
    assert memory.get(messages[0].id).user_id == "alice"
    assert GraphMemChatMessageHistory(memory, "chat-8", scope=SCOPE).messages == []
    history.clear()
    assert history.messages == []


def test_chat_history_keeps_tool_turns_as_text(memory):
    from langchain_core.messages import ToolMessage

    history = GraphMemChatMessageHistory(memory, "chat-tools", scope=SCOPE)
    history.add_messages([
        HumanMessage("Remember I like tea"),
        AIMessage("", tool_calls=[{"name": "remember", "args": {"text": "likes tea"}, "id": "c1"}]),
        ToolMessage("Remembered [x]: likes tea", tool_call_id="c1"),
        AIMessage("Done."),
    ])
    assert [m.content for m in history.messages] == [
        "Remember I like tea", 'calls remember({"text": "likes tea"})', "Done."]
    with_tools = GraphMemChatMessageHistory(memory, "chat-tools", scope=SCOPE, include_tool_results=True).messages
    assert [type(m).__name__ for m in with_tools] == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage"]


def test_chat_history_extracts_with_a_model(memory):
    from graphmem._learning.prompts import Extraction

    llm = scripted(tool_answer(Extraction.__name__, {
        "entities": [{"name": "Alice", "type": "person"}, {"name": "Berlin", "type": "city"}],
        "facts": [{"text": "Alice lives in Berlin", "subject": "Alice", "predicate": "lives_in", "object": "Berlin"}],
    }))
    history = GraphMemChatMessageHistory(memory, "chat-9", scope=SCOPE, llm=llm)
    history.add_messages([HumanMessage("I live in Berlin now")])
    assert llm.calls == 1 and [f.text for f in history.last_result.facts] == ["Alice lives in Berlin"]
    assert [f.text for f in memory.facts(scope=SCOPE)] == ["Alice lives in Berlin"]


@pytest.mark.filterwarnings("ignore:.*RunnableWithMessageHistory.*")
def test_chat_history_inside_runnable_with_message_history(memory):
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("history"), ("human", "{question}")])
    model = FakeListChatModel(responses=["Nice to meet you, Alice.", "You told me you are Alice."])
    chain = RunnableWithMessageHistory(
        prompt | model,
        lambda session_id: GraphMemChatMessageHistory(memory, session_id, scope=SCOPE),
        input_messages_key="question", history_messages_key="history",
    )
    config = {"configurable": {"session_id": "rwmh-1"}}
    chain.invoke({"question": "I am Alice"}, config=config)
    answer = chain.invoke({"question": "Who am I?"}, config=config)
    assert answer.content == "You told me you are Alice."
    stored = GraphMemChatMessageHistory(memory, "rwmh-1", scope=SCOPE).messages
    assert [m.content for m in stored] == ["I am Alice", "Nice to meet you, Alice.", "Who am I?",
                                           "You told me you are Alice."]


async def test_chat_history_async(neo4j, schema, embedder, tenant, memory):
    async with AsyncMemory(neo4j.uri, (neo4j.user, neo4j.password), tenant=tenant, embedder=embedder) as amem:
        for backing in (amem, memory):
            history = GraphMemChatMessageHistory(backing, f"async-{type(backing).__name__}", scope=SCOPE)
            await history.aadd_messages([HumanMessage("one"), AIMessage("two")])
            assert [m.content for m in await history.aget_messages()] == ["one", "two"]
            await history.aclear()
            assert await history.aget_messages() == []
