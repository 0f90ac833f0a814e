package org.vancetope.worktarget.core.internal.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

class ConfinedRootTest {
    private FileSystem fs;
    private Path ws;
    private ConfinedRoot gate;

    @BeforeEach
    void setUp() throws IOException {
        fs = Jimfs.newFileSystem(Configuration.unix());
        ws = Files.createDirectories(fs.getPath("/ws"));
        Files.createDirectories(ws.resolve("src/main"));
        Files.writeString(ws.resolve("src/main/A.java"), "class A {}");
        Files.createDirectories(fs.getPath("/outside"));
        Files.writeString(fs.getPath("/outside/secret.txt"), "secret");
        gate = ConfinedRoot.of(ws);
    }

    @AfterEach
    void tearDown() throws IOException {
        fs.close();
    }

    private static ToolException refused(ConfinedRoot g, String path) {
        try {
            g.resolve(path);
        } catch (ToolException e) {
            return e;
        }
        throw new AssertionError("expected a refusal of " + path);
    }

    private static void assertEscape(ConfinedRoot g, String path) {
        ToolException e = refused(g, path);
        assertThat(e.code()).isEqualTo(ErrorCode.PATH_ESCAPE);
    }

    @Test
    void resolvesARelativePathInsideTheRoot() throws ToolException {
        assertThat(gate.resolve("src/main/A.java")).isEqualTo(ws.resolve("src/main/A.java"));
    }

    @Test
    void dotIsTheRoot() throws ToolException {
        assertThat(gate.resolve(".")).isEqualTo(ws);
        assertThat(gate.relative(gate.resolve("."))).isEqualTo(".");
    }

    @Test
    void dotDotThatStaysInsideIsAllowed() throws ToolException {
        assertThat(gate.resolve("src/main/../main/./A.java")).isEqualTo(ws.resolve("src/main/A.java"));
    }

    @Test
    void notYetExistingTargetsResolve() throws ToolException {
        assertThat(gate.resolve("new/dir/file.txt")).isEqualTo(ws.resolve("new/dir/file.txt"));
    }

    @Test
    void relativeRendersWithSlashes() throws ToolException {
        assertThat(gate.relative(gate.resolve("src//main/A.java"))).isEqualTo("src/main/A.java");
    }

    @Test
    void jailbreakDotDotAtTheStartIsRefused() {
        assertEscape(gate, "../outside/secret.txt");
    }

    @Test
    void jailbreakDotDotInTheMiddleIsRefused() {
        assertEscape(gate, "src/../../outside/secret.txt");
    }

    @Test
    void jailbreakDotDotAtTheEndIsRefused() {
        assertEscape(gate, "src/main/../../..");
    }

    @Test
    void jailbreakLoneDotDotIsRefused() {
        assertEscape(gate, "..");
    }

    @Test
    void jailbreakAbsolutePathIsRefused() {
        assertEscape(gate, "/outside/secret.txt");
    }

    @Test
    void jailbreakAbsolutePathInsideTheRootIsAlsoRefused() {
        assertEscape(gate, "/ws/src/main/A.java");
    }

    @Test
    void jailbreakTildeIsRefused() {
        assertEscape(gate, "~/.ssh/id_rsa");
        assertEscape(gate, "~root");
    }

    @Test
    void aPathStartingWithAnEnvironmentVariableIsRefusedInsteadOfMakingADirectoryOfThatName() {
        for (String path : new String[] {"$HOME/.bashrc", "$HOME", "${HOME}/x", "${XDG_CONFIG_HOME}/app.conf", "$TMPDIR/a",
                "%USERPROFILE%/Desktop/a.txt"}) {
            String first = path.split("/", 2)[0];
            assertThatThrownBy(() -> gate.resolve(path)).as(path).isInstanceOfSatisfying(ToolException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.PATH_ESCAPE);
                assertThat(e.getMessage()).startsWith("Path '" + path + "' starts with '" + first + "', which reads as an "
                        + "environment variable; the file tools do not expand variables").contains("exec_run");
            });
        }
        assertThat(ws.resolve("$HOME")).doesNotExist();
    }

    @Test
    void aDollarSignElsewhereIsAnOrdinaryCharacter() throws ToolException {
        for (String path : new String[] {"build/Outer$Inner.class", "$foo", "$", "price$", "a/$HOME/b", "$RECYCLE.BIN", "100%", "50%off%"}) {
            assertThat(gate.resolve(path)).as(path).isEqualTo(ws.resolve(path));
        }
    }

    @Test
    void tildeInsideANameIsAllowed() throws ToolException {
        assertThat(gate.resolve("src/A.java~")).isEqualTo(ws.resolve("src/A.java~"));
    }

    @Test
    void jailbreakNulByteIsRefused() {
        ToolException e = refused(gate, "src/A.java\0.txt");
        assertThat(e.code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(e.getMessage()).contains("NUL").doesNotContain("\0");
    }

    @Test
    void jailbreakBackslashIsRefused() {
        assertEscape(gate, "..\\outside\\secret.txt");
        assertEscape(gate, "src\\main");
    }

    @Test
    void jailbreakDriveLetterIsRefused() {
        assertEscape(gate, "C:/Windows");
    }

    @Test
    void jailbreakEmptyPathIsRefused() {
        assertEscape(gate, "");
        assertEscape(gate, null);
    }

    @Test
    void jailbreakOverLongPathIsRefused() {
        assertEscape(gate, "a/".repeat(3000));
    }

    @Test
    void jailbreakOverLongComponentIsRefused() {
        assertEscape(gate, "x".repeat(300));
    }

    @Test
    void aComponentIsMeasuredInBytesOfUtf8AsFileSystemsStoreIt() throws ToolException {
        // 128 letters 'é' are 256 bytes: no Linux file system stores such a name
        ToolException e = refused(gate, "src/" + "é".repeat(128));
        assertThat(e.code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(e.getMessage()).contains("longer than 255 bytes", "has 256", "Use shorter names");
        assertThat(refused(gate, "\u65e5".repeat(86)).getMessage()).contains("has 258");
        assertThat(gate.resolve("é".repeat(127))).isEqualTo(ws.resolve("é".repeat(127)));
        assertThat(gate.resolve("\u65e5".repeat(85))).isEqualTo(ws.resolve("\u65e5".repeat(85)));
    }

    @Test
    void thePathIsMeasuredInBytesOfUtf8() throws ToolException {
        String deep = ("é".repeat(100) + "/").repeat(25);     // 2,525 characters, 5,025 bytes
        ToolException e = refused(gate, deep);
        assertThat(e.code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(e.getMessage()).contains("longer than 4096 bytes", "has 5025");
        String fits = ("é".repeat(100) + "/").repeat(20);     // 4,020 bytes
        assertThat(gate.resolve(fits)).isEqualTo(ws.resolve(fits));
    }

    @Test
    void jailbreakControlCharacterIsRefused() {
        assertEscape(gate, "src/\nA.java");
    }

    @Test
    void aControlCharacterInAPathIsNamedWithTheWayToReachSuchAFile() {
        // file_list shows a name with a newline (legal on disk); the tools cannot take it, exec_run can
        ToolException e = refused(gate, "new\nline.txt");
        assertThat(e.getMessage()).isEqualTo("Path 'new?line.txt' contains a control character (U+000A, shown as "
                + "'?'), which the file tools do not take in a path. A file whose name holds one can only be reached "
                + "with exec_run: rename it there, e.g. mv with a shell glob that matches it, such as 'new?line.txt'.");
    }

    @Test
    void jailbreakSiblingSharingThePrefixIsRefused() throws IOException {
        for (String sibling : new String[] {"/ws_evil", "/ws2", "/ws.bak"}) {
            Files.createDirectories(fs.getPath(sibling));
            Files.writeString(fs.getPath(sibling, "x.txt"), "x");
            assertEscape(gate, "../" + sibling.substring(1) + "/x.txt");
        }
    }

    @Test
    void jailbreakSiblingPrefixThroughALinkIsRefused() throws IOException {
        Files.createDirectories(fs.getPath("/ws_evil"));
        Files.createSymbolicLink(ws.resolve("evil"), fs.getPath("/ws_evil"));
        assertEscape(gate, "evil");
        assertEscape(gate, "evil/new.txt");
    }

    @Test
    void jailbreakFileLinkPointingOutAbsoluteIsRefused() throws IOException {
        Files.createSymbolicLink(ws.resolve("s.txt"), fs.getPath("/outside/secret.txt"));
        assertEscape(gate, "s.txt");
    }

    @Test
    void jailbreakFileLinkPointingOutRelativeIsRefused() throws IOException {
        Files.createSymbolicLink(ws.resolve("src/s.txt"), fs.getPath("../../outside/secret.txt"));
        assertEscape(gate, "src/s.txt");
    }

    @Test
    void jailbreakDirectoryLinkPointingOutIsRefused() throws IOException {
        Files.createSymbolicLink(ws.resolve("out"), fs.getPath("/outside"));
        assertEscape(gate, "out/secret.txt");
        assertEscape(gate, "out");
    }

    @Test
    void jailbreakSymlinkedParentOfANewFileIsRefused() throws IOException {
        Files.createSymbolicLink(ws.resolve("out"), fs.getPath("/outside"));
        assertEscape(gate, "out/new/file.txt");
    }

    @Test
    void jailbreakDotDotAfterASymlinkStaysLexicalAndInside() throws IOException, ToolException {
        Files.createDirectories(fs.getPath("/outside/deep"));
        Files.createSymbolicLink(ws.resolve("out"), fs.getPath("/outside/deep"));
        // "out/.." is the root itself, never /outside
        assertThat(gate.resolve("out/../src/main/A.java")).isEqualTo(ws.resolve("src/main/A.java"));
        assertEscape(gate, "out/../../outside/secret.txt");
    }

    @Test
    void jailbreakLinkChainEndingOutsideIsRefused() throws IOException {
        Files.createSymbolicLink(ws.resolve("c3"), fs.getPath("/outside/secret.txt"));
        Files.createSymbolicLink(ws.resolve("c2"), ws.resolve("c3"));
        Files.createSymbolicLink(ws.resolve("c1"), fs.getPath("c2"));
        assertEscape(gate, "c1");
    }

    @Test
    void jailbreakLinkLoopIsRefused() throws IOException {
        Files.createSymbolicLink(ws.resolve("loopA"), fs.getPath("loopB"));
        Files.createSymbolicLink(ws.resolve("loopB"), fs.getPath("loopA"));
        assertEscape(gate, "loopA");
        assertEscape(gate, "loopA/x.txt");
    }

    @Test
    void jailbreakDanglingLinkIsRefused() throws IOException {
        Files.createSymbolicLink(ws.resolve("dangling"), fs.getPath("/nowhere/file"));
        assertEscape(gate, "dangling");
    }

    @Test
    void jailbreakDanglingLinkInsideTheRootIsAlsoRefused() throws IOException {
        Files.createSymbolicLink(ws.resolve("dangling"), fs.getPath("not-yet.txt"));
        assertEscape(gate, "dangling");
    }

    @Test
    void linkStayingInsideTheRootIsAllowedAndResolvedToItsTarget() throws IOException, ToolException {
        Files.createSymbolicLink(ws.resolve("alias"), fs.getPath("src/main"));
        assertThat(gate.resolve("alias/A.java")).isEqualTo(ws.resolve("src/main/A.java"));
        assertThat(gate.relative(gate.resolve("alias/A.java"))).isEqualTo("src/main/A.java");
    }

    @Test
    void linkChainStayingInsideIsAllowed() throws IOException, ToolException {
        Files.createSymbolicLink(ws.resolve("l2"), fs.getPath("src/main/A.java"));
        Files.createSymbolicLink(ws.resolve("l1"), fs.getPath("l2"));
        assertThat(gate.resolve("l1")).isEqualTo(ws.resolve("src/main/A.java"));
    }

    @Test
    void resolveEntryKeepsTheLastLinkUnfollowed() throws IOException, ToolException {
        Files.createSymbolicLink(ws.resolve("s.txt"), fs.getPath("/outside/secret.txt"));
        assertThat(gate.resolveEntry("s.txt")).isEqualTo(ws.resolve("s.txt"));
    }

    @Test
    void jailbreakResolveEntryOfTheRootIsRefused() {
        assertThatThrownBy(() -> gate.resolveEntry("."))
                .isInstanceOf(ToolException.class)
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.PATH_ESCAPE);
    }

    @Test
    void jailbreakResolveEntryThroughALinkedParentIsRefused() throws IOException {
        Files.createSymbolicLink(ws.resolve("out"), fs.getPath("/outside"));
        assertThatThrownBy(() -> gate.resolveEntry("out/secret.txt")).isInstanceOf(ToolException.class);
    }

    @Test
    void jailbreakMessageIsTheSameWhetherOrNotTheOutsideFileExists() {
        String existing = refused(gate, "../outside/secret.txt").getMessage();
        String missing = refused(gate, "../outside/nothing.txt").getMessage();
        assertThat(existing.replace("secret", "X")).isEqualTo(missing.replace("nothing", "X"));
    }

    @Test
    void jailbreakMessageThroughLinksIsTheSameWhetherOrNotTheTargetExists() throws IOException {
        Files.createSymbolicLink(ws.resolve("a"), fs.getPath("/outside/secret.txt"));
        Files.createSymbolicLink(ws.resolve("b"), fs.getPath("/outside/nothing.txt"));
        assertThat(refused(gate, "a").getMessage().replace("'a'", "X"))
                .isEqualTo(refused(gate, "b").getMessage().replace("'b'", "X"));
    }

    @Test
    void jailbreakMessageNeverShowsTheHostRootOrTheLinkTarget() throws IOException {
        Files.createSymbolicLink(ws.resolve("a"), fs.getPath("/outside/secret.txt"));
        assertThat(refused(gate, "a").getMessage()).doesNotContain("/ws").doesNotContain("/outside");
        assertThat(refused(gate, "../x").getMessage()).doesNotContain("/ws");
    }

    @Test
    void rootGivenWithTrailingSlashIsCanonicalised() throws IOException, ToolException {
        ConfinedRoot g = ConfinedRoot.of(fs.getPath("/ws/"));
        assertThat(g.root()).isEqualTo(ws);
        assertThat(g.resolve("src")).isEqualTo(ws.resolve("src"));
    }

    @Test
    void rootGivenThroughASymlinkIsCanonicalised() throws IOException, ToolException {
        Path link = Files.createSymbolicLink(fs.getPath("/wslink"), ws);
        ConfinedRoot g = ConfinedRoot.of(link);
        assertThat(g.root()).isEqualTo(ws);
        assertThat(g.resolve("src/main/A.java")).isEqualTo(ws.resolve("src/main/A.java"));
        assertEscape(g, "../outside/secret.txt");
    }

    @Test
    void missingRootIsRejectedAtConstruction() {
        assertThatThrownBy(() -> ConfinedRoot.of(fs.getPath("/nope"))).isInstanceOf(IOException.class);
    }

    @Test
    void worksOnAWindowsFileSystem() throws IOException, ToolException {
        try (FileSystem win = Jimfs.newFileSystem(Configuration.windows())) {
            Path root = Files.createDirectories(win.getPath("C:\\work"));
            Files.createDirectories(win.getPath("C:\\work_evil"));
            ConfinedRoot g = ConfinedRoot.of(root);
            assertThat(g.resolve("a/b.txt")).isEqualTo(root.resolve("a").resolve("b.txt"));
            assertThat(g.relative(g.resolve("a/b.txt"))).isEqualTo("a/b.txt");
            assertEscape(g, "../work_evil");
            assertEscape(g, "a\\..\\..\\x");
            assertEscape(g, "C:/x");
            assertEscape(g, "a/b<c");
        }
    }

    @Test
    void secureDirectoryOpensValidatedDirectoriesWithoutFollowingLinks() throws IOException, ToolException {
        Files.createSymbolicLink(ws.resolve("alias"), fs.getPath("src"));
        try (SafeDirectory d = gate.open(gate.resolve("src/main"))) {
            assertThat(d.names()).containsExactly("A.java");
        }
        assertThatThrownBy(() -> gate.open(ws.resolve("alias/main"))).isInstanceOf(IOException.class);
    }

    // ------------------------------------------------------------------ real file system

    @Test
    @EnabledOnOs(OS.LINUX)
    void aFileRenamedWhileItIsResolvedIsNeverTakenForAnEscape(@TempDir Path tmp) throws Exception {
        Path root = Files.createDirectory(tmp.resolve("root"));
        Path f = Files.writeString(root.resolve("f.txt"), "x");
        Path g = root.resolve("g.txt");
        ConfinedRoot r = ConfinedRoot.of(root);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread mover = new Thread(() -> {
            try {
                while (!stop.get()) {
                    Files.move(f, g);
                    Files.move(g, f);
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        mover.start();
        int escapes = 0;
        try {
            for (int i = 0; i < 20_000; i++) {
                try {
                    r.resolveForRead("f.txt");
                    r.resolveEntry("f.txt");
                } catch (ToolException e) {
                    if (e.code() == ErrorCode.PATH_ESCAPE) {
                        escapes++;
                    }
                }
            }
        } finally {
            stop.set(true);
            mover.join();
        }
        assertThat(escapes).as("resolutions of a plain name refused as escapes").isZero();
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void jailbreakRealLinkPointingOutIsRefused(@TempDir Path tmp) throws IOException {
        Path root = Files.createDirectories(tmp.resolve("ws"));
        Path outside = Files.writeString(tmp.resolve("secret.txt"), "secret");
        Files.createSymbolicLink(root.resolve("s"), outside);
        assertEscape(ConfinedRoot.of(root), "s");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void jailbreakLinkIntoProcSelfIsRefused(@TempDir Path tmp) throws IOException {
        Path root = Files.createDirectories(tmp.resolve("ws"));
        Files.createSymbolicLink(root.resolve("procroot"), Paths.get("/proc/self/root"));
        Files.createSymbolicLink(root.resolve("proccwd"), Paths.get("/proc/self/cwd"));
        Files.createSymbolicLink(root.resolve("fd"), Paths.get("/proc/self/fd/0"));
        ConfinedRoot g = ConfinedRoot.of(root);
        assertEscape(g, "procroot/etc/passwd");
        assertEscape(g, "proccwd");
        assertEscape(g, "fd");
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void jailbreakRealRootThroughASymlinkStillConfines(@TempDir Path tmp) throws IOException, ToolException {
        Path root = Files.createDirectories(tmp.resolve("ws"));
        Files.createDirectories(tmp.resolve("ws_evil"));
        Path link = Files.createSymbolicLink(tmp.resolve("wslink"), root);
        ConfinedRoot g = ConfinedRoot.of(Paths.get(link + "/"));
        assertThat(g.root()).isEqualTo(root.toRealPath());
        assertEscape(g, "../ws_evil");
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void jailbreakFifoIsRefusedBeforeOpening(@TempDir Path tmp) throws IOException, InterruptedException {
        Path root = Files.createDirectories(tmp.resolve("ws"));
        Process p = new ProcessBuilder("mkfifo", root.resolve("pipe").toString()).start();
        assertThat(p.waitFor()).isZero();
        ToolException e = refused(ConfinedRoot.of(root), "pipe");
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("special file");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void jailbreakDeviceIsRefused(@TempDir Path tmp) throws IOException {
        Path root = Files.createDirectories(tmp.resolve("ws"));
        Files.createSymbolicLink(root.resolve("null"), Paths.get("/dev/null"));
        // a link to a device outside is an escape; the device itself is never opened
        assertEscape(ConfinedRoot.of(root), "null");
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void jailbreakSwappedComponentIsNotFollowedBySafeDirectory(@TempDir Path tmp) throws IOException, ToolException {
        Path root = Files.createDirectories(tmp.resolve("ws"));
        Files.createDirectories(root.resolve("sub"));
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("f.txt"), "secret");
        ConfinedRoot g = ConfinedRoot.of(root);
        Path validated = g.resolve("sub");
        // attacker swaps the checked directory for a link after the check
        Files.delete(root.resolve("sub"));
        Files.createSymbolicLink(root.resolve("sub"), outside);
        assertThatThrownBy(() -> g.open(validated).close()).isInstanceOf(IOException.class);
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void jailbreakParentSwappedAfterOpeningCannotRedirectAWrite(@TempDir Path tmp) throws Exception {
        Path root = Files.createDirectories(tmp.resolve("ws"));
        Files.createDirectories(root.resolve("sub"));
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        ConfinedRoot g = ConfinedRoot.of(root);
        try (SafeDirectory d = g.open(g.resolve("sub"))) {
            assertThat(d.secure()).isTrue();
            // attacker moves the directory away and puts a link to the outside in its place
            Files.move(root.resolve("sub"), root.resolve("sub-old"));
            Files.createSymbolicLink(root.resolve("sub"), outside);
            try (var ch = d.newByteChannel("x.txt", java.util.Set.of(java.nio.file.StandardOpenOption.CREATE_NEW,
                    java.nio.file.StandardOpenOption.WRITE))) {
                ch.write(java.nio.ByteBuffer.wrap("data".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            }
        }
        assertThat(Files.exists(outside.resolve("x.txt"))).isFalse();
        assertThat(Files.readString(root.resolve("sub-old/x.txt"))).isEqualTo("data");
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void jailbreakLastComponentSwappedForALinkIsNotOpened(@TempDir Path tmp) throws Exception {
        Path root = Files.createDirectories(tmp.resolve("ws"));
        Files.writeString(root.resolve("f.txt"), "mine");
        Path outside = Files.writeString(tmp.resolve("secret.txt"), "secret");
        ConfinedRoot g = ConfinedRoot.of(root);
        Path validated = g.resolve("f.txt");
        Files.delete(validated);
        Files.createSymbolicLink(validated, outside);
        try (SafeDirectory d = g.open(validated.getParent())) {
            assertThatThrownBy(() -> d.openRead("f.txt").close()).isInstanceOf(IOException.class);
        }
    }

    @Test
    void aPathNamesADirectoryByItsFormWhenItsLastComponentIsEmptyDotOrDotDot() {
        assertThat(ConfinedRoot.directoryEnding("docs/")).isEqualTo("/");
        assertThat(ConfinedRoot.directoryEnding("docs/.")).isEqualTo("/.");
        assertThat(ConfinedRoot.directoryEnding("docs/..")).isEqualTo("/..");
        assertThat(ConfinedRoot.directoryEnding(".")).isEqualTo(".");
        assertThat(ConfinedRoot.directoryEnding("..")).isEqualTo("..");
        for (String named : new String[] {"docs", "docs/a.txt", "./a", "a/.b", "a/..b", "a/b..", ""}) {
            assertThat(ConfinedRoot.directoryEnding(named)).as(named).isNull();
        }
    }

    @Test
    void theDirectoryOfAPathEndingWithASlashOrSlashDotIsWrittenWithoutTheEnding() {
        assertThat(ConfinedRoot.withoutDirectoryEnding("docs/")).isEqualTo("docs");
        assertThat(ConfinedRoot.withoutDirectoryEnding("a/docs//")).isEqualTo("a/docs");
        assertThat(ConfinedRoot.withoutDirectoryEnding("docs/.")).isEqualTo("docs");
        assertThat(ConfinedRoot.withoutDirectoryEnding("docs/..")).as("names the parent: no suggestion").isNull();
        assertThat(ConfinedRoot.withoutDirectoryEnding("/")).isNull();
        assertThat(ConfinedRoot.withoutDirectoryEnding("docs")).isNull();
    }
}
