package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.spi.ToolAnnotations;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolLabel;
import org.vancetope.worktarget.spi.ToolSpec;

class WireTest {

    @Test
    void helloWithUnknownFieldsDecodesAndIgnoresThem() throws Exception {
        Message m = Wire.decode("{\"type\":\"hello\",\"future\":{\"x\":[1,2]},\"protocolVersion\":1,\"profile\":\"daemon\","
                + "\"tenant\":\"acme\",\"project\":\"p\",\"daemonName\":\"box\",\"capabilities\":[\"a\"],\"tools\":[]}");
        assertThat(m).isEqualTo(new Message.Hello(1, "daemon", "acme", "p", "box", null, null, Set.of("a"), List.of(), Map.of()));
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
    void anOtherFrameWithItsTypeInTheCanonicalHeadIsHandedOnUnparsed() throws Exception {
        String text = "{\"type\":\"transfer_chunk\",\"transferId\":\"t1\",\"seq\":0,\"bytes\":\"\",\"last\":true}";
        assertThat(((Message.Other) Wire.decode(text)).fields()).isNull();
    }

    @Test
    void anOtherFrameWhoseTypeIsNotFirstIsHandedOnWithTheFieldsParsedOnce() throws Exception {
        String text = "{\"transferId\":\"t1\",\"attrs\":{\"mode\":\"644\"},\"type\":\"transfer_finish\",\"ok\":true}";
        Message.Other o = (Message.Other) Wire.decode(text);
        assertThat(o.type()).isEqualTo("transfer_finish");
        assertThat(o.fields()).isEqualTo(Map.of("type", "transfer_finish", "transferId", "t1",
                "attrs", Map.of("mode", "644"), "ok", true));
        assertThat(o.text()).isEqualTo(text);
    }

    @Test
    void anOtherFrameWithWhitespaceBeforeItsTypeIsParsedForIt() throws Exception {
        Message.Other o = (Message.Other) Wire.decode("{ \"type\" : \"transfer_finish\", \"ok\":true}");
        assertThat(o.fields()).containsEntry("ok", true);
    }

    @Test
    void anOwnFrameWithItsTypeInTheCanonicalHeadIsStillDecoded() throws Exception {
        assertThat(Wire.decode("{\"type\":\"client_tool_cancel\",\"correlationId\":\"dt-1\"}"))
                .isEqualTo(new Message.Cancel("dt-1"));
    }

    @Test
    void aMistypedFieldOfAnOwnFrameIsABadFrameNamingFieldAndFrame() {
        assertThatThrownBy(() -> Wire.decode("{\"type\":\"client_tool_invoke\",\"correlationId\":\"dt-1\","
                + "\"name\":\"t\",\"timeoutMs\":\"60\"}")).isInstanceOf(BadFrameException.class)
                .hasMessage("The field 'timeoutMs' of 'client_tool_invoke' must be an integer, got a string.");
    }

    @Test
    void aFractionalTimeoutIsABadFrame() {
        assertThatThrownBy(() -> Wire.decode("{\"type\":\"client_tool_invoke\",\"correlationId\":\"dt-1\","
                + "\"name\":\"t\",\"timeoutMs\":1.5}")).isInstanceOf(BadFrameException.class)
                .hasMessage("The field 'timeoutMs' of 'client_tool_invoke' must be an integer, got 1.5.");
    }

    @Test
    void aMissingCorrelationIdIsABadFrameSayingWhatToSend() {
        assertThatThrownBy(() -> Wire.decode("{\"type\":\"client_tool_cancel\"}")).isInstanceOf(BadFrameException.class)
                .hasMessage("The frame 'client_tool_cancel' needs a non-empty string field 'correlationId'.");
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
    void processEndRoundTripsWithItsContext() throws Exception {
        Message.ProcessEnd in = new Message.ProcessEnd(new ToolContext("agent-1", null, "acme", "proj", null));
        String text = Wire.encodeToString(in);
        assertThat(text).startsWith("{\"type\":\"process_end\"").contains("\"processId\":\"agent-1\"");
        assertThat(Wire.decode(text)).isEqualTo(in);
    }

    @Test
    void processEndWithoutAContextIsABadFrame() {
        assertThatThrownBy(() -> Wire.decode("{\"type\":\"process_end\"}"))
                .isInstanceOf(BadFrameException.class).hasMessageContaining("context");
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
    void aSpecFromAPeerThatPredatesTitlesAndOutputSchemasGetsTheCautiousDefaults() throws Exception {
        Message back = Wire.decode("{\"type\":\"tool_manifest\",\"tools\":[{\"name\":\"client_file_delete\","
                + "\"description\":\"d\",\"primary\":true,\"labels\":[\"write\"],\"paramsSchema\":{\"type\":\"object\"}}]}");
        ToolSpec spec = ((Message.ToolManifest) back).tools().get(0);
        assertThat(spec.title()).isEqualTo("Client file delete");
        assertThat(spec.outputSchema()).isEqualTo(Map.of("type", "object"));
        assertThat(spec.annotations()).isEqualTo(new ToolAnnotations("Client file delete", false, true, false, true));
    }

    @Test
    void theRefiningLabelsTitleAndOutputSchemaTravelOnTheWire() throws Exception {
        ToolSpec spec = ToolCatalog.backend("client_file_mkdir").orElseThrow();
        String text = Wire.encodeToString(new Message.ToolManifest(List.of(spec)));
        assertThat(text).contains("\"labels\":[\"closed-world\",\"idempotent\",\"non-destructive\",\"write\"]")
                .contains("\"title\":\"Create directory (client)\"").contains("\"outputSchema\":{\"type\":\"object\"");
        ToolSpec back = ((Message.ToolManifest) Wire.decode(text)).tools().get(0);
        assertThat(back.annotations()).isEqualTo(new ToolAnnotations("Create directory (client)", false, false, true, false));
    }

    @Test
    void aLabelThisVersionDoesNotKnowIsIgnored() throws Exception {
        Message back = Wire.decode("{\"type\":\"tool_manifest\",\"tools\":[{\"name\":\"x\",\"labels\":"
                + "[\"read-only\",\"from-the-future\"],\"paramsSchema\":{\"type\":\"object\"}}]}");
        assertThat(((Message.ToolManifest) back).tools().get(0).labels()).containsExactly(ToolLabel.READ_ONLY);
    }

    @Test
    void manifestWithANonObjectOutputSchemaIsABadFrameNamingTheTool() {
        assertThatThrownBy(() -> Wire.decode("{\"type\":\"tool_manifest\",\"tools\":[{\"name\":\"x\","
                + "\"paramsSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"string\"}}]}"))
                .isInstanceOf(BadFrameException.class).hasMessageContaining("'x'").hasMessageContaining("outputSchema");
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
    void aBoundedEncodeAcceptsAFrameOfExactlyTheLimit() throws Exception {
        Message.Result r = new Message.Result("dt-1", true, Map.of("text", "x".repeat(70_000)), null, null);
        int exact = encodedLength(r);
        ByteBuf buf = Wire.encode(r, UnpooledByteBufAllocator.DEFAULT, exact);
        try {
            assertThat(buf.readableBytes()).isEqualTo(exact);
            assertThat(Wire.decode(buf)).isEqualTo(r);
        } finally {
            buf.release();
        }
    }

    @Test
    void aBoundedEncodeRefusesAFrameOneByteOverTheLimitAndNamesIt() {
        Message.Result r = new Message.Result("dt-1", true, Map.of("text", "x".repeat(70_000)), null, null);
        int limit = encodedLength(r) - 1;
        assertThatThrownBy(() -> Wire.encode(r, UnpooledByteBufAllocator.DEFAULT, limit))
                .isInstanceOf(FrameTooLargeException.class).hasMessageContaining("client_tool_result")
                .satisfies(e -> assertThat(((FrameTooLargeException) e).limit()).isEqualTo(limit));
    }

    @Test
    void aBoundedEncodeStopsAtTheLimitInsteadOfBuildingTheWholeFrame() {
        Watching watching = new Watching();
        Message.Result huge = new Message.Result("dt-1", true, Map.of("text", "x".repeat(20_000_000)), null, null);
        assertThatThrownBy(() -> Wire.encode(huge, watching, 100_000)).isInstanceOf(FrameTooLargeException.class);
        assertThat(watching.largest.get()).isLessThanOrEqualTo(2 * 100_000);
    }

    /** An allocator that records the largest capacity any of its buffers grew to. */
    private static final class Watching extends AbstractByteBufAllocator {
        final AtomicInteger largest = new AtomicInteger();

        Watching() {
            super(false);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            largest.accumulateAndGet(initialCapacity, Math::max);
            return new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity) {
                @Override
                public ByteBuf capacity(int newCapacity) {
                    largest.accumulateAndGet(newCapacity, Math::max);
                    return super.capacity(newCapacity);
                }
            };
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            return newHeapBuffer(initialCapacity, maxCapacity);
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }
    }

    @Test
    void aBoundedEncodeOfAValueThatIsNotJsonFailsAsAnEncodingErrorNotAsTooLarge() {
        Message.Result r = new Message.Result("dt-1", true, Map.of("v", new Object()), null, null);
        assertThatThrownBy(() -> Wire.encode(r, UnpooledByteBufAllocator.DEFAULT, 1 << 20))
                .isInstanceOf(java.io.UncheckedIOException.class);
    }

    @Test
    void aBoundedEncodeOfAnOtherFrameChecksItsLength() {
        String text = "{\"type\":\"transfer_finish\",\"transferId\":\"t\"}";
        assertThatThrownBy(() -> Wire.encode(new Message.Other("transfer_finish", text), UnpooledByteBufAllocator.DEFAULT,
                text.length() - 1)).isInstanceOf(FrameTooLargeException.class);
    }

    private static int encodedLength(Message m) {
        ByteBuf buf = Wire.encode(m, UnpooledByteBufAllocator.DEFAULT);
        try {
            return buf.readableBytes();
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
