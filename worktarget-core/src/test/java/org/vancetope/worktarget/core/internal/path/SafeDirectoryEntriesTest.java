package org.vancetope.worktarget.core.internal.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link SafeDirectory#entries()} and the operations that take its one-component names: the same
 * entries as {@link SafeDirectory#names()}, usable for attributes, reads and subdirectories, and no
 * other path accepted (an absolute path, {@code ..}, several components, another file system), on
 * Jimfs and on the real disk.
 */
class SafeDirectoryEntriesTest {
    private FileSystem jimfs;

    @TempDir
    Path tmp;

    @BeforeEach
    void setUp() {
        jimfs = Jimfs.newFileSystem(Configuration.unix().toBuilder().setAttributeViews("basic", "posix").build());
    }

    @AfterEach
    void tearDown() throws IOException {
        jimfs.close();
    }

    static Stream<Arguments> disks() {
        return Stream.of(Arguments.of("jimfs"), Arguments.of("disk"));
    }

    private Path root(String where) throws IOException {
        return where.equals("jimfs") ? Files.createDirectories(jimfs.getPath("/ws"))
                : Files.createDirectories(tmp.resolve("ws")).toRealPath();
    }

    private static String read(SeekableByteChannel ch) throws IOException {
        try (ch) {
            ByteBuffer bb = ByteBuffer.allocate(64);
            while (ch.read(bb) > 0) {
                // read it whole
            }
            return new String(bb.array(), 0, bb.position(), StandardCharsets.UTF_8);
        }
    }

    @ParameterizedTest
    @MethodSource("disks")
    void entriesAreTheVisibleNamesAndServeTheEntryOperations(String where) throws Exception {
        Path ws = root(where);
        Files.createDirectories(ws.resolve(".worktarget/exec"));
        Files.writeString(ws.resolve(Reserved.newName(Reserved.FILE)), "partial");
        Files.writeString(ws.resolve("a.txt"), "alpha");
        Files.createDirectories(ws.resolve("sub"));
        Files.writeString(ws.resolve("sub/b.txt"), "beta");
        ConfinedRoot gate = ConfinedRoot.of(ws);
        try (SafeDirectory top = gate.openRoot()) {
            List<Path> entries = top.entries();
            List<String> names = new ArrayList<>();
            entries.forEach(e -> names.add(e.toString()));
            assertThat(names).containsExactlyInAnyOrder("a.txt", "sub");
            Path a = entries.stream().filter(e -> e.toString().equals("a.txt")).findFirst().orElseThrow();
            Path sub = entries.stream().filter(e -> e.toString().equals("sub")).findFirst().orElseThrow();
            assertThat(top.attributes(a).size()).isEqualTo(5);
            assertThat(read(top.openRead(a))).isEqualTo("alpha");
            try (SafeDirectory s = top.openChild(sub)) {
                List<Path> inner = s.entries();
                assertThat(inner).hasSize(1);
                assertThat(read(s.openRead(inner.get(0)))).isEqualTo("beta");
            }
            // a second listing of the same handle lists again
            assertThat(top.entries()).hasSize(2);
        }
    }

    @ParameterizedTest
    @MethodSource("disks")
    void onlyOneComponentNamesOfTheSameFileSystemAreAccepted(String where) throws Exception {
        Path ws = root(where);
        Files.createDirectories(ws.resolve("sub"));
        Files.writeString(ws.resolve("sub/b.txt"), "beta");
        ConfinedRoot gate = ConfinedRoot.of(ws);
        try (SafeDirectory sub = gate.open(ws.resolve("sub"))) {
            List<Path> refused = List.of(ws.resolve("sub/b.txt"), ws.getFileSystem().getPath(".."),
                    ws.getFileSystem().getPath("."), ws.getFileSystem().getPath("../sub/b.txt"),
                    ws.getFileSystem().getPath("x/b.txt"), ws.getFileSystem().getPath(""),
                    (where.equals("jimfs") ? tmp : jimfs.getPath("/ws")).getFileSystem().getPath("b.txt"));
            for (Path p : refused) {
                assertThatThrownBy(() -> sub.attributes(p)).as(p.toString()).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> sub.openRead(p)).as(p.toString()).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> sub.openChild(p)).as(p.toString()).isInstanceOf(IllegalArgumentException.class);
            }
            assertThat(read(sub.openRead(ws.getFileSystem().getPath("b.txt")))).isEqualTo("beta");
        }
    }

    @EnabledOnOs(OS.LINUX)
    @ParameterizedTest
    @MethodSource("disks")
    void aLinkNamedByAnEntryIsNotFollowed(String where) throws Exception {
        Path ws = root(where);
        Path outside = Files.createDirectories(ws.getParent().resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "secret");
        Files.createSymbolicLink(ws.resolve("link.txt"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(ws.resolve("linkdir"), outside);
        ConfinedRoot gate = ConfinedRoot.of(ws);
        try (SafeDirectory top = gate.openRoot()) {
            for (Path e : top.entries()) {
                assertThat(top.attributes(e).isSymbolicLink()).isTrue();
                assertThatThrownBy(() -> read(top.openRead(e))).isInstanceOf(IOException.class);
                assertThatThrownBy(() -> top.openChild(e)).isInstanceOf(IOException.class);
            }
        }
    }
}
