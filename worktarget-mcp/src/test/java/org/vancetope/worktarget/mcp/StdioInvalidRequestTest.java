package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.json.McpJsonDefaults;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Over stdio, a request whose params the SDK cannot read gets an invalid-params error (-32602) with its id
 * and a message that says what to send, instead of an internal error carrying a deserialiser's message
 * (or, for an unknown logging level, a silent {@code info}); a batch gets a parse error that says to send
 * each message on its own. The server reads on and serves the next call.
 */
class StdioInvalidRequestTest {
    private LocalStdioServer server;
    private StdioPipe stdio;

    @BeforeEach
    void serve(@TempDir Path tmp) throws IOException {
        Files.writeString(tmp.resolve("a.txt"), "hello\n");
        server = new LocalStdioServer(tmp);
        stdio = server.stdio;
        stdio.send(StdioPipe.INIT);
        stdio.answerTo(1);
    }

    @AfterEach
    void close() throws IOException {
        server.close();
    }

    /** The answer to request {@code id} ({@code null}: a parse error), once it came. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> answerTo(Object id) throws IOException {
        return McpJsonDefaults.getMapper().readValue(stdio.answerTo(id), Map.class);
    }

    @SuppressWarnings("unchecked")
    private String invalidParams(int id, String method, String params) throws IOException {
        stdio.send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\""
                + (params == null ? "" : ",\"params\":" + params) + "}\n");
        Map<String, Object> answer = answerTo(id);
        assertThat(answer).doesNotContainKey("result");
        Map<String, Object> error = (Map<String, Object>) answer.get("error");
        assertThat(error).containsEntry("code", -32602);
        return (String) error.get("message");
    }

    private void theNextCallIsServed() throws IOException {
        stdio.send("{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"tools/call\",\"params\":{\"name\":\"file_read\","
                + "\"arguments\":{\"path\":\"a.txt\"}}}\n");
        Map<String, Object> answer = answerTo(99);
        assertThat(answer).containsKey("result");
        assertThat(answer.get("result").toString()).contains("hello").contains("isError=false");
    }

    @Test
    void toolsCallWithArgumentsThatAreNotAnObjectGetsInvalidParams() throws IOException {
        assertThat(invalidParams(2, "tools/call", "{\"name\":\"file_read\",\"arguments\":\"a.txt\"}"))
                .contains("arguments of tools/call file_read must be a JSON object", "a string (\"a.txt\")");
        assertThat(invalidParams(3, "tools/call", "{\"name\":\"file_read\",\"arguments\":[\"a.txt\"]}"))
                .contains("an array");
        theNextCallIsServed();
    }

    @Test
    void toolsCallWithoutParamsOrAToolNameGetsInvalidParams() throws IOException {
        assertThat(invalidParams(2, "tools/call", null)).contains("tools/call needs params {\"name\": TOOL");
        assertThat(invalidParams(3, "tools/call", "{\"name\":7,\"arguments\":{}}")).contains("tools/list");
        theNextCallIsServed();
    }

    @Test
    void paramsThatAreNotAnObjectGetInvalidParamsWhateverTheMethod() throws IOException {
        assertThat(invalidParams(2, "tools/list", "\"x\"")).isEqualTo(
                "The params of tools/list must be a JSON object, not a string (\"x\").");
        assertThat(invalidParams(3, "ping", "[1]")).contains("params of ping", "an array");
        assertThat(invalidParams(4, "initialize", "true")).contains("params of initialize", "true");
        theNextCallIsServed();
    }

    @Test
    void initializeWithMembersOfTheWrongTypeGetsInvalidParamsThatShowTheShape() throws IOException {
        assertThat(invalidParams(2, "initialize", "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":\"all\","
                + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}"))
                .contains("\"capabilities\": {…}", "capabilities must be a JSON object");
        assertThat(invalidParams(3, "initialize", null)).contains("initialize needs params");
        theNextCallIsServed();
    }

    @Test
    void anUnknownOrMissingLoggingLevelGetsInvalidParamsNotASilentInfo() throws IOException {
        assertThat(invalidParams(2, "logging/setLevel", "{\"level\":\"loud\"}"))
                .contains("one of debug, info, notice, warning, error, critical, alert, emergency", "\"loud\"");
        assertThat(invalidParams(3, "logging/setLevel", null)).contains("logging/setLevel needs params");
        stdio.send("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"warning\"}}\n");
        assertThat(answerTo(4)).containsKey("result");
    }

    @SuppressWarnings("unchecked")
    @Test
    void aBatchGetsAnInvalidRequestThatSaysToSendEachMessageOnItsOwn() throws IOException {
        stdio.send("[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]\n");
        Map<String, Object> error = (Map<String, Object>) answerTo(null).get("error");
        assertThat(error).containsEntry("code", -32600);
        assertThat((String) error.get("message")).contains("batches of JSON-RPC messages are not accepted",
                "each message on its own");
        theNextCallIsServed();
    }

    @SuppressWarnings("unchecked")
    @Test
    void aMessageNestedTooDeepGetsAParseErrorThatSaysSo() throws IOException {
        stdio.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"file_read\","
                + "\"arguments\":{\"path\":" + "[".repeat(5000) + "]".repeat(5000) + "}}}\n");
        Map<String, Object> error = (Map<String, Object>) answerTo(null).get("error");
        assertThat(error).containsEntry("code", -32700);
        assertThat((String) error.get("message")).startsWith("The line is not one JSON-RPC message: ")
                .contains("nesting depth").doesNotContain("Failed to read value").doesNotContain("[[[");
        theNextCallIsServed();
    }

    @SuppressWarnings("unchecked")
    @Test
    void anObjectThatIsNoMessageGetsAShortInvalidRequestThatShowsTheShapeAndNotTheText() throws IOException {
        String big = "x".repeat(1 << 20);
        stdio.send("{\"jsonrpc\":\"2.0\",\"blob\":\"" + big + "\"}\n");
        Map<String, Object> error = (Map<String, Object>) answerTo(null).get("error");
        assertThat(error).containsEntry("code", -32600);
        assertThat((String) error.get("message")).hasSizeLessThan(1024).doesNotContain("xxxxxxxx")
                .contains("with a \"method\" (a request or notification)", "\"params\": {…}");
        theNextCallIsServed();
    }

    @SuppressWarnings("unchecked")
    @Test
    void aRequestWithAnIdButNoMethodGetsAnInvalidRequestWithItsIdSoTheClientMatchesIt() throws IOException {
        stdio.send("{\"jsonrpc\":\"2.0\",\"id\":5}\n");
        Map<String, Object> answer = answerTo(5);
        assertThat(answer).containsEntry("id", 5).doesNotContainKey("result");
        Map<String, Object> error = (Map<String, Object>) answer.get("error");
        assertThat(error).containsEntry("code", -32600);
        assertThat((String) error.get("message")).contains("with a \"method\" (a request or notification)");
        theNextCallIsServed();
    }

    @SuppressWarnings("unchecked")
    @Test
    void aRequestWithAStringIdAndAMethodThatIsNoStringGetsAnInvalidRequestWithItsId() throws IOException {
        stdio.send("{\"jsonrpc\":\"2.0\",\"id\":\"r-7\",\"method\":{\"name\":\"ping\"}}\n");
        Map<String, Object> answer = answerTo("\"r-7\"");
        assertThat(answer).containsEntry("id", "r-7");
        assertThat((Map<String, Object>) answer.get("error")).containsEntry("code", -32600);
        theNextCallIsServed();
    }

    @SuppressWarnings("unchecked")
    @Test
    void aMethodThatIsANumberOrABooleanGetsAnInvalidRequestNotMethodNotFound() throws IOException {
        stdio.send("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":5}\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":true}\n");
        for (int id : new int[] {6, 7}) {
            Map<String, Object> error = (Map<String, Object>) answerTo(id).get("error");
            assertThat(error).containsEntry("code", -32600);
            assertThat((String) error.get("message")).contains("\"method\" of a request or notification must be a string");
        }
        stdio.send("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"5\"}\n");
        assertThat((Map<String, Object>) answerTo(8).get("error")).as("a string that looks like a number is a method")
                .containsEntry("code", -32601);
        theNextCallIsServed();
    }

    @SuppressWarnings("unchecked")
    @Test
    void anIdThatIsNoStringOrIntegerIsAnsweredWithIdNull() throws IOException {
        stdio.send("{\"jsonrpc\":\"2.0\",\"id\":{\"n\":1}}\n");
        Map<String, Object> answer = answerTo(null);
        assertThat(answer).containsEntry("id", null);
        assertThat((Map<String, Object>) answer.get("error")).containsEntry("code", -32600);
        theNextCallIsServed();
    }
}
