package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolSpec;

class WireTest {

    @Test
    void helloWithUnknownFieldsDecodesAndIgnoresThem() throws Exception {
        Message m = Wire.decode("{\"type\":\"hello\",\"future\":{\"x\":[1,2]},\"protocolVersion\":1,\"profile\":\"daemon\","
                + "\"tenant\":\"acme\",\"project\":\"p\",\"daemonName\":\"box\",\"capabilities\":[\"a\"],\"tools\":[]}");
        assertThat(m).isEqualTo(new Message.Hello(1, "daemon", "acme", "p", "box", null, null, Set.of("a"), List.of()));
    }

    @Test
    void typeAfterOtherFieldsIsFound() throws Exception {
        Message m = Wire.decode("{\"correlationId\":\"dt-1\",\"nested\":{\"type\":\"nope\"},\"type\":\"client_tool_cancel\"}");
        assertThat(m).isEqualTo(new Message.Cancel("dt-1"));
    }

    @Test
    void invalidJsonIsABadFrame() {
        assertThatThrownBy(() -> Wire.decode("{\"type\":\"hello\""))
                .isInstanceOf(BadFrameException.class).hasMessageContaining("not valid JSON");
    }

    @Test
    void trailingGarbageIsABadFrame() {
        assertThatThrownBy(() -> Wire.decode("{\"type\":\"client_tool_cancel\",\"correlationId\":\"x\"} 42"))
                .isInstanceOf(BadFrameException.class);
    }

    @Test
    void nonObjectIsABadFrame() {
        assertThatThrownBy(() -> Wire.decode("[1,2]")).isInstanceOf(BadFrameException.class)
                .hasMessageContaining("JSON object");
    }

    @Test
    void missingTypeIsABadFrame() {
        assertThatThrownBy(() -> Wire.decode("{\"correlationId\":\"x\"}")).isInstanceOf(BadFrameException.class)
                .hasMessageContaining("no field 'type'");
    }

    @Test
    void nonStringTypeIsABadFrame() {
        assertThatThrownBy(() -> Wire.decode("{\"type\":7}")).isInstanceOf(BadFrameException.class);
    }

    @Test
    void unknownTypeIsHandedOnWithItsText() throws Exception {
        String text = "{\"type\":\"transfer_chunk\",\"transferId\":\"t1\",\"data\":\"AAAA\"}";
        assertThat(Wire.decode(text)).isEqualTo(new Message.Other("transfer_chunk", text));
    }

    @Test
    void resultWithoutOkIsABadFrame() {
        assertThatThrownBy(() -> Wire.decode("{\"type\":\"client_tool_result\",\"correlationId\":\"dt-1\"}"))
                .isInstanceOf(BadFrameException.class).hasMessageContaining("'ok'");
    }

    @Test
    void invokeRoundTripsThroughABuffer() throws Exception {
        ToolContext ctx = new ToolContext("p1", "s1", "acme", "proj", "alice");
        Message.Invoke in = new Message.Invoke("dt-abc", "client_file_read", Map.of("path", "a.txt", "maxLines", 3),
                60000, ctx);
        ByteBuf buf = Wire.encode(in, UnpooledByteBufAllocator.DEFAULT);
        try {
            assertThat(Wire.decode(buf)).isEqualTo(in);
        } finally {
            buf.release();
        }
    }

    @Test
    void failedResultCarriesCodeAndMessage() throws Exception {
        Message.Result r = new Message.Result("ct-1", false, null, "path_escape", "outside the root");
        String text = Wire.encodeToString(r);
        assertThat(text).contains("\"error\":{\"code\":\"path_escape\"");
        assertThat(Wire.decode(text)).isEqualTo(r);
    }

    @Test
    void toolSpecsRoundTripInAManifest() throws Exception {
        ToolSpec spec = ToolCatalog.backend("client_file_read").orElseThrow();
        Message.ToolManifest m = new Message.ToolManifest(List.of(spec));
        Message back = Wire.decode(Wire.encodeToString(m));
        assertThat(((Message.ToolManifest) back).tools()).containsExactly(spec);
    }

    @Test
    void manifestWithADuplicateNameIsABadFrame() {
        String spec = "{\"name\":\"client_file_read\",\"paramsSchema\":{\"type\":\"object\"}}";
        assertThatThrownBy(() -> Wire.decode("{\"type\":\"tool_manifest\",\"tools\":[" + spec + "," + spec + "]}"))
                .isInstanceOf(BadFrameException.class).hasMessageContaining("twice");
    }

    @Test
    void manifestWithANonObjectSchemaIsABadFrame() {
        assertThatThrownBy(() -> Wire.decode("{\"type\":\"tool_manifest\",\"tools\":[{\"name\":\"x\","
                + "\"paramsSchema\":{\"type\":\"string\"}}]}")).isInstanceOf(BadFrameException.class);
    }

    @Test
    void otherFramesAreWrittenVerbatim() {
        String text = "{\"type\":\"transfer_finish\",\"transferId\":\"t\"}";
        ByteBuf buf = Wire.encode(new Message.Other("transfer_finish", text), UnpooledByteBufAllocator.DEFAULT);
        try {
            assertThat(buf.toString(StandardCharsets.UTF_8)).isEqualTo(text);
        } finally {
            buf.release();
        }
    }

    @Test
    void idsCarryThePrefixAnd128RandomBits() {
        Ids ids = new Ids();
        String a = ids.next("dt-");
        assertThat(a).matches("dt-[0-9a-f]{32}");
        assertThat(ids.next("dt-")).isNotEqualTo(a);
    }
}
