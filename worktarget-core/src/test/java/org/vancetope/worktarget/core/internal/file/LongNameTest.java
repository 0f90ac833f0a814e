package org.vancetope.worktarget.core.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Names longer than the disk stores. With the default limits (255 bytes per name, 4,096 per path,
 * counted as UTF-8 like the file system counts them) the gate refuses them before any lookup; where a
 * host raised the limits, or the file system stores shorter names than most (eCryptfs), what the
 * file system says ({@code ENAMETOOLONG}) reaches the caller as {@code invalid_params} that says to
 * use shorter names, never as {@code internal}.
 */
@EnabledOnOs({OS.LINUX, OS.MAC})
class LongNameTest {
    /** 150 letters 'é': 150 characters, 300 bytes; more than any common file system stores in a name. */
    private static final String LONG = "é".repeat(150);

    @TempDir
    Path tmp;

    private Path ws;
    private final FileEngine engine = new FileEngine(FileToolSettings.defaults());

    @BeforeEach
    void setUp() throws IOException {
        ws = Files.createDirectories(tmp.resolve("ws")).toRealPath();
        Files.writeString(ws.resolve("a.txt"), "hello\n");
    }

    private Map<String, Object> run(ConfinedRoot gate, String op, Object... kv) throws ToolException {
        Map<String, Object> p = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            p.put((String) kv[i], kv[i + 1]);
        }
        return engine.run(op, gate, p).toMap();
    }

    private ToolException fails(ConfinedRoot gate, String op, Object... kv) {
        try {
            run(gate, op, kv);
        } catch (ToolException e) {
            return e;
        }
        throw new AssertionError(op + " should have failed");
    }

    private static List<Object[]> callsNaming(String name) {
        return List.of(new Object[] {"file_write", "path", name, "content", "x"},
                new Object[] {"file_mkdir", "path", name},
                new Object[] {"file_read", "path", name},
                new Object[] {"file_stat", "path", name},
                new Object[] {"file_edit", "path", name, "oldText", "a", "newText", "b"},
                new Object[] {"file_list", "path", name},
                new Object[] {"file_delete", "path", name},
                new Object[] {"file_move", "from", "a.txt", "to", name});
    }

    @Test
    void aNameOfMoreBytesThanTheDiskStoresIsRefusedBeforeAnyLookup() throws Exception {
        ConfinedRoot gate = ConfinedRoot.of(ws);
        for (Object[] call : callsNaming(LONG)) {
            ToolException e = fails(gate, (String) call[0], java.util.Arrays.copyOfRange(call, 1, call.length));
            assertThat(e.code()).as((String) call[0]).isEqualTo(ErrorCode.PATH_ESCAPE);
            assertThat(e.getMessage()).as((String) call[0]).contains("longer than 255 bytes", "has 300",
                    "Use shorter names");
        }
        assertUntouched();
    }

    @Test
    void whatTheFileSystemRefusesAsTooLongIsInvalidParamsNotInternal() throws Exception {
        // a host that raised the limits past what the disk stores: the file system has the last word
        ConfinedRoot gate = ConfinedRoot.of(ws, 100_000, 100_000);
        for (Object[] call : callsNaming(LONG)) {
            ToolException e = fails(gate, (String) call[0], java.util.Arrays.copyOfRange(call, 1, call.length));
            if (e.code() == ErrorCode.NOT_FOUND) {
                continue;       // a lookup the file system answers "no such file" rather than "too long"
            }
            assertThat(e.code()).as((String) call[0] + ": " + e.getMessage()).isEqualTo(ErrorCode.INVALID_PARAMS);
            assertThat(e.getMessage()).as((String) call[0]).contains("refuses a name or a path this long",
                    "Use shorter names or fewer directory levels");
        }
        assertThat(fails(gate, "file_write", "path", LONG, "content", "x").code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertUntouched();
    }

    private void assertUntouched() throws IOException {
        try (Stream<Path> s = Files.list(ws)) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactly("a.txt");
        }
        assertThat(Files.readString(ws.resolve("a.txt"))).isEqualTo("hello\n");
    }
}
