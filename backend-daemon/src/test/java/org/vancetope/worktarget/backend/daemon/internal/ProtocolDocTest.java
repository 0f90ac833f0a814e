package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferFinish;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferInitResponse;
import org.vancetope.worktarget.core.transfer.UploadRequest;
import org.vancetope.worktarget.spi.ErrorCode;

/**
 * {@code docs/protocol.md} cannot silently fall behind the code: it names every frame type, close code
 * and capability that {@link Wire} defines, every transfer frame type, and every error code's wire name.
 */
class ProtocolDocTest {
    private static String doc;

    @BeforeAll
    static void read() throws IOException {
        doc = Files.readString(Path.of("..", "docs", "protocol.md"));
    }

    private static List<Field> constants(Class<?> type) {
        List<Field> out = new ArrayList<>();
        for (Field f : type.getDeclaredFields()) {
            int m = f.getModifiers();
            if (Modifier.isPublic(m) && Modifier.isStatic(m) && Modifier.isFinal(m)) {
                out.add(f);
            }
        }
        return out;
    }

    @Test
    void everyFrameTypeOfWireIsDocumented() throws IllegalAccessException {
        List<String> types = new ArrayList<>();
        for (Field f : constants(Wire.class)) {
            if (f.getType() == String.class && Wire.isOwnType((String) f.get(null))) {
                types.add((String) f.get(null));
            }
        }
        assertThat(types).as("frame types found in Wire").hasSizeGreaterThanOrEqualTo(8);
        for (String t : types) {
            assertThat(doc).as("docs/protocol.md names frame type %s", t).contains("`" + t + "`");
            assertThat(doc).as("docs/protocol.md has a section or table row for %s", t)
                    .containsPattern("(### `" + t + "`|\\| `" + t + "` \\|)");
        }
    }

    @Test
    void everyCloseCodeIsInTheCloseCodeTable() throws IllegalAccessException {
        List<Integer> codes = new ArrayList<>();
        for (Field f : constants(Wire.class)) {
            if (f.getName().startsWith("CLOSE_") && f.getType() == int.class) {
                codes.add(f.getInt(null));
            }
        }
        codes.add(Utf8.CLOSE_INVALID_PAYLOAD);
        assertThat(codes).as("close codes found in Wire").hasSizeGreaterThanOrEqualTo(10);
        for (int c : codes) {
            assertThat(doc).as("docs/protocol.md's close-code table has a row for %s", c).contains("\n| " + c + " |");
        }
    }

    @Test
    void everyCapabilityIsDocumented() throws IllegalAccessException {
        for (Field f : constants(Wire.class)) {
            if (f.getName().startsWith("CAP_")) {
                String cap = (String) f.get(null);
                assertThat(doc).as("docs/protocol.md has a section for capability %s", cap).contains("### `" + cap + "`");
            }
        }
        assertThat(doc).contains("## Capabilities of transfer V2");
        for (org.vancetope.worktarget.core.transfer.TransferCapability c
                : org.vancetope.worktarget.core.transfer.TransferCapability.values()) {
            assertThat(doc).as("docs/protocol.md has a section for transfer capability %s", c.wire())
                    .contains("### `" + c.wire() + "`");
        }
    }

    @Test
    void everyTransferFrameTypeIsDocumented() {
        for (String t : List.of(TransferInit.TYPE, TransferInitResponse.TYPE, TransferChunk.TYPE, TransferComplete.TYPE,
                TransferFinish.TYPE, UploadRequest.TYPE,
                org.vancetope.worktarget.core.transfer.DirectoryManifest.TYPE,
                org.vancetope.worktarget.core.transfer.DirectoryManifestResponse.TYPE,
                org.vancetope.worktarget.core.transfer.DirectoryUploadRequest.TYPE)) {
            assertThat(doc).as("docs/protocol.md has a table for transfer frame %s", t).contains("`" + t + "` (");
        }
    }

    @Test
    void everyErrorCodeIsInTheErrorCodeTable() {
        for (ErrorCode c : ErrorCode.values()) {
            assertThat(doc).as("docs/protocol.md's error-code table has a row for %s", c.wire())
                    .contains("\n| `" + c.wire() + "` |");
        }
    }

    @Test
    void theLimitsTheServerAnnouncesAreDocumented() {
        for (String key : List.of(Wire.LIMIT_MAX_FRAME_BYTES, "maxChunkBytes", "maxUploadSize", "maxDownloadSize",
                "phaseTimeoutMs")) {
            assertThat(doc).as("docs/protocol.md's welcome.limits table has %s", key).contains("\n| `" + key + "` |");
        }
        assertThat(doc).contains("`" + Wire.PROFILE_HEADER + "`");
    }
}
