package org.vancetope.worktarget.core.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * A full disk is {@code disk_full} on every write of the file tools, says what to do, and loses
 * nothing: no partial file, no staging file left, an existing file unchanged. On a size-limited Jimfs.
 */
class DiskFullTest {
    private static final int DISK = 64 * 1024;

    private FileSystem fs;
    private Path root;
    private ConfinedRoot gate;
    private final FileEngine engine = new FileEngine(FileToolSettings.defaults());

    @BeforeEach
    void setUp() throws IOException {
        fs = Jimfs.newFileSystem(Configuration.unix().toBuilder().setMaxSize(DISK).setBlockSize(1024).build());
        root = Files.createDirectories(fs.getPath("/ws"));
        gate = ConfinedRoot.of(root);
    }

    @AfterEach
    void tearDown() throws IOException {
        fs.close();
    }

    private ToolException fails(String op, Map<String, Object> params) {
        try {
            engine.run(op, gate, params);
        } catch (ToolException e) {
            return e;
        }
        throw new AssertionError(op + " should have failed");
    }

    private List<String> tree() throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.map(p -> root.relativize(p).toString()).sorted().toList();
        }
    }

    @Test
    void aWriteToAFullDiskFailsDiskFullAndLeavesNoPartOfTheFile() throws Exception {
        ToolException e = fails("file_write", Map.of("path", "big.txt", "content", "x".repeat(2 * DISK)));
        assertThat(e.code()).isEqualTo(ErrorCode.DISK_FULL);
        assertThat(e.getMessage()).contains("disk is full", "'big.txt'", "Free space");
        assertThat(tree()).containsExactly("");
    }

    @Test
    void anOverwriteOnAFullDiskFailsDiskFullAndKeepsTheOldContent() throws Exception {
        Files.writeString(root.resolve("a.txt"), "old\n");
        ToolException e = fails("file_write", Map.of("path", "a.txt", "content", "y".repeat(2 * DISK)));
        assertThat(e.code()).isEqualTo(ErrorCode.DISK_FULL);
        assertThat(Files.readString(root.resolve("a.txt"))).isEqualTo("old\n");
        assertThat(tree()).containsExactly("", "a.txt");
    }

    @Test
    void anEditOnAFullDiskFailsDiskFullAndKeepsTheFile() throws Exception {
        String text = "start\n" + "z".repeat(DISK / 2) + "\nend\n";
        Files.writeString(root.resolve("e.txt"), text);
        ToolException e = fails("file_edit", Map.of("path", "e.txt", "oldText", "start", "newText", "begin"));
        assertThat(e.code()).isEqualTo(ErrorCode.DISK_FULL);
        assertThat(Files.readString(root.resolve("e.txt"))).isEqualTo(text);
        assertThat(tree()).containsExactly("", "e.txt");
    }
}
