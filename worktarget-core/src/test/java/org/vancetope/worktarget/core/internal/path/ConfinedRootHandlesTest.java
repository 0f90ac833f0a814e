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
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * What the confined root does besides validating: the library's own entries (the internal directory,
 * reserved staging names), directories made race-free, staged writes, handle-based tree deletion and
 * the sweep of a dead process's leftovers. On Jimfs and, where the item is about the disk, on the real
 * file system.
 */
class ConfinedRootHandlesTest {
    private FileSystem fs;
    private Path ws;
    private Path outside;
    private ConfinedRoot root;

    @TempDir
    Path tmp;

    @BeforeEach
    void setUp() throws IOException {
        fs = Jimfs.newFileSystem(Configuration.unix().toBuilder().setAttributeViews("basic", "posix").build());
        ws = Files.createDirectories(fs.getPath("/ws"));
        outside = Files.createDirectories(fs.getPath("/outside"));
        Files.writeString(outside.resolve("secret.txt"), "secret");
        root = ConfinedRoot.of(ws);
    }

    @AfterEach
    void tearDown() throws IOException {
        fs.close();
    }

    private static ToolException refusal(ThrowingCall call) {
        try {
            call.run();
        } catch (ToolException e) {
            return e;
        }
        throw new AssertionError("expected a refusal");
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void run() throws ToolException;
    }

    private static List<String> tree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.map(p -> dir.relativize(p).toString()).sorted().toList();
        }
    }

    private static String text(SeekableByteChannel ch) throws IOException {
        try (ch) {
            ByteBuffer b = ByteBuffer.allocate((int) ch.size());
            while (b.hasRemaining() && ch.read(b) > 0) {
                // read all
            }
            return new String(b.array(), 0, b.position(), StandardCharsets.UTF_8);
        }
    }

    // ---------------------------------------------------------------------------- internal entries

    @Test
    void theInternalDirectoryIsRefusedAsAPath() {
        for (String p : List.of(".worktarget", ".worktarget/exec", ".worktarget/tmp/x", ".WorkTarget/exec/x",
                "a/../.worktarget/x")) {
            ToolException e = refusal(() -> root.resolve(p));
            assertThat(e.code()).as(p).isEqualTo(ErrorCode.PATH_ESCAPE);
            assertThat(e.getMessage()).as(p).contains("WorkTarget's own directory");
        }
    }

    @Test
    void jobOutputFilesMayBeReadButNotWritten() throws Exception {
        assertThat(root.resolveForRead(".worktarget/exec/j1.stdout")).isEqualTo(ws.resolve(".worktarget/exec/j1.stdout"));
        assertThat(refusal(() -> root.resolve(".worktarget/exec/j1.stdout")).code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(refusal(() -> root.resolveEntry(".worktarget/exec/j1.stdout")).code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(refusal(() -> root.resolveForRead(".worktarget/exec")).code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(refusal(() -> root.resolveForRead(".worktarget/tmp/x")).code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(root.resolveForRead(ConfinedRoot.jobOutputPath("j1.stdout")))
                .isEqualTo(ws.resolve(ConfinedRoot.jobOutputPath("j1.stdout")));
        Files.createDirectories(ws.resolve(".worktarget/exec/someone"));
        assertThat(refusal(() -> root.resolveForRead(".worktarget/exec/someone")).code())
                .as("a directory of job output is not listed").isEqualTo(ErrorCode.PATH_ESCAPE);
    }

    @Test
    void aLinkInsideTheRootThatPointsIntoTheInternalDirectoryIsRefusedToo() throws Exception {
        Files.createDirectories(ws.resolve(".worktarget/tmp"));
        Files.createSymbolicLink(ws.resolve("sneaky"), fs.getPath(".worktarget/tmp"));
        assertThat(refusal(() -> root.resolve("sneaky/x")).getMessage()).contains("WorkTarget's own directory");
    }

    @Test
    void anInternalDirectoryNameBelowTheTopIsAnOrdinaryName() throws Exception {
        assertThat(root.resolve("sub/.worktarget/x")).isEqualTo(ws.resolve("sub/.worktarget/x"));
    }

    @Test
    void reservedStagingNamesAreRefusedAsPathsAnywhere() {
        String name = Reserved.newName(Reserved.FILE);
        assertThat(refusal(() -> root.resolve(name)).getMessage()).contains("staging files");
        assertThat(refusal(() -> root.resolve("sub/" + name)).code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(refusal(() -> root.resolveForRead(Reserved.newName(Reserved.DIR))).code())
                .isEqualTo(ErrorCode.PATH_ESCAPE);
    }

    @Test
    void listingsHideTheInternalDirectoryAndReservedNamesButMaintenanceSeesThem() throws Exception {
        Files.createDirectories(ws.resolve(".worktarget/exec"));
        Files.createDirectories(ws.resolve("sub/.worktarget"));
        String staged = Reserved.newName(Reserved.FILE);
        Files.writeString(ws.resolve(staged), "partial");
        Files.writeString(ws.resolve("sub/" + Reserved.newName(Reserved.FILE)), "partial");
        Files.writeString(ws.resolve("a.txt"), "a");
        try (SafeDirectory top = root.openRoot(); SafeDirectory sub = top.openChild("sub")) {
            assertThat(top.names()).containsExactlyInAnyOrder("a.txt", "sub");
            assertThat(top.allNames()).contains(".worktarget", staged);
            assertThat(sub.names()).containsExactly(".worktarget");
        }
    }

    @Test
    void aUserFileThatOnlyLooksLikeAStagingNameStaysVisible() throws Exception {
        Files.writeString(ws.resolve(".wt-notes.part"), "mine");
        try (SafeDirectory top = root.openRoot()) {
            assertThat(top.names()).containsExactly(".wt-notes.part");
        }
    }

    // ---------------------------------------------------------------------------- directories

    @Test
    void openOrCreateMakesEveryMissingComponentAndLeavesNoReservedEntry() throws Exception {
        try (SafeDirectory d = root.openOrCreate(root.resolve("a/b/c"))) {
            assertThat(d.path()).isEqualTo(ws.resolve("a/b/c"));
        }
        assertThat(ws.resolve("a/b/c")).isDirectory();
        assertThat(tree(ws)).containsExactly("", "a", "a/b", "a/b/c");
    }

    @Test
    void openOrCreateOpensAnExistingDirectory() throws Exception {
        Files.createDirectories(ws.resolve("a/b"));
        Files.writeString(ws.resolve("a/b/keep.txt"), "k");
        try (SafeDirectory d = root.openOrCreate(root.resolve("a/b"))) {
            assertThat(d.names()).containsExactly("keep.txt");
        }
    }

    @Test
    void jailbreakOpenOrCreateRefusesAComponentSwappedForALinkAfterTheCheck() throws Exception {
        Files.createDirectories(ws.resolve("d"));
        Path validated = root.resolve("d/new/deeper");
        Files.move(ws.resolve("d"), ws.resolve("d-real"));
        Files.createSymbolicLink(ws.resolve("d"), outside);
        assertThatThrownBy(() -> root.openOrCreate(validated).close()).isInstanceOf(IOException.class);
        assertThat(tree(outside)).containsExactly("", "secret.txt");
    }

    @Test
    void aFileInThePlaceOfADirectoryIsNotReplaced() throws Exception {
        Files.writeString(ws.resolve("f"), "file");
        assertThatThrownBy(() -> root.openOrCreate(ws.resolve("f/sub")).close()).isInstanceOf(IOException.class);
        assertThat(Files.readString(ws.resolve("f"))).isEqualTo("file");
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void onTheRealDiskANewDirectoryIsRenamedIntoTheDirectoryThatWasOpenedEvenWhenItMovedAway() throws Exception {
        Path disk = Files.createDirectories(tmp.resolve("root"));
        Path out = Files.createDirectories(tmp.resolve("outside"));
        Files.createDirectories(disk.resolve("d"));
        ConfinedRoot r = ConfinedRoot.of(disk);
        try (SafeDirectory d = r.open(r.resolve("d"))) {
            // the opened directory moves away and a link to the outside takes its place
            Files.move(disk.resolve("d"), disk.resolve("d-moved"));
            Files.createSymbolicLink(disk.resolve("d"), out);
            d.mkdir("new").close();
        }
        assertThat(disk.resolve("d-moved/new")).isDirectory();
        assertThat(tree(out)).containsExactly("");
        assertThat(tree(disk).stream().filter(Reserved::isReserved)).isEmpty();
    }

    // ---------------------------------------------------------------------------- internal directories

    @Test
    void theJobOutputDirectoryOfThisProcessIsCreatedOnFirstUse() throws Exception {
        try (SafeDirectory d = root.jobOutputDirectory()) {
            d.createFile("j1.stdout").close();
        }
        assertThat(ConfinedRoot.jobOutputPath("j1.stdout")).isEqualTo(".worktarget/exec/" + Reserved.owner() + "/j1.stdout");
        assertThat(ws.resolve(ConfinedRoot.jobOutputPath("j1.stdout"))).exists();
        assertThat(text(root.openJobOutput("j1.stdout"))).isEmpty();
        assertThat(root.deleteJobOutput("j1.stdout")).isTrue();
        assertThat(ws.resolve(ConfinedRoot.jobOutputPath("j1.stdout"))).doesNotExist();
    }

    @Test
    void jailbreakAPlantedLinkInThePlaceOfTheInternalDirectoryIsRemovedNotFollowed() throws Exception {
        Files.createSymbolicLink(ws.resolve(".worktarget"), outside);
        try (SafeDirectory d = root.jobOutputDirectory()) {
            d.createFile("j1.stdout").close();
        }
        assertThat(Files.isSymbolicLink(ws.resolve(".worktarget"))).isFalse();
        assertThat(ws.resolve(ConfinedRoot.jobOutputPath("j1.stdout"))).exists();
        assertThat(tree(outside)).containsExactly("", "secret.txt");
    }

    @Test
    void jailbreakAPlantedLinkInThePlaceOfTheOutputDirectoryIsRemovedNotFollowed() throws Exception {
        Files.createDirectories(ws.resolve(".worktarget/exec"));
        Files.createSymbolicLink(ws.resolve(".worktarget/exec/" + Reserved.owner()), outside);
        root.jobOutputDirectory().close();
        assertThat(ws.resolve(".worktarget/exec/" + Reserved.owner())).isDirectory();
        assertThat(Files.isSymbolicLink(ws.resolve(".worktarget/exec/" + Reserved.owner()))).isFalse();
        assertThat(tree(outside)).containsExactly("", "secret.txt");
    }

    @Test
    void aRegularFileOfTheUserNamedLikeTheInternalDirectoryIsLeftAloneAndReported() throws Exception {
        Files.writeString(ws.resolve(".worktarget"), "the user's own file");
        assertThatThrownBy(() -> root.jobOutputDirectory().close()).isInstanceOf(IOException.class)
                .hasMessageContaining("Move that file away");
        assertThat(Files.readString(ws.resolve(".worktarget"))).isEqualTo("the user's own file");
    }

    @Test
    void jailbreakDeleteJobOutputThroughALinkedDirectoryDeletesNothingOutside() throws Exception {
        Path victim = Files.createDirectories(outside.resolve("exec/" + Reserved.owner())).resolve("j1.stdout");
        Files.writeString(victim, "precious");
        Files.createSymbolicLink(ws.resolve(".worktarget"), outside);
        assertThat(root.deleteJobOutput("j1.stdout")).isFalse();
        assertThat(Files.readString(victim)).isEqualTo("precious");
    }

    @Test
    void jailbreakOpenJobOutputThroughALinkedDirectoryReadsNothingOutside() throws Exception {
        Path victim = Files.createDirectories(outside.resolve("exec/" + Reserved.owner())).resolve("j1.stdout");
        Files.writeString(victim, "precious");
        Files.createSymbolicLink(ws.resolve(".worktarget"), outside);
        assertThatThrownBy(() -> root.openJobOutput("j1.stdout").close()).isInstanceOf(IOException.class);
    }

    // ---------------------------------------------------------------------------- staged files

    @Test
    void aStagedFileAppearsWholeOnCommitAndItsStagingNameIsGone() throws Exception {
        Path target = root.resolve("docs/a.txt");
        try (StagedFile f = root.stage(target)) {
            f.write("hello".getBytes(StandardCharsets.UTF_8));
            assertThat(ws.resolve("docs/a.txt")).doesNotExist();
            f.finishWriting(true);
            f.commit(PosixFilePermissions.fromString("rw-r-----"), FileTime.from(Instant.parse("2026-01-02T03:04:05Z")));
        }
        assertThat(Files.readString(ws.resolve("docs/a.txt"))).isEqualTo("hello");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(ws.resolve("docs/a.txt"))))
                .isEqualTo("rw-r-----");
        assertThat(Files.getLastModifiedTime(ws.resolve("docs/a.txt")).toInstant())
                .isEqualTo(Instant.parse("2026-01-02T03:04:05Z"));
        assertThat(tree(ws)).containsExactly("", "docs", "docs/a.txt");
    }

    @Test
    void aStagedFileReplacesAnExistingOne() throws Exception {
        Files.writeString(ws.resolve("a.txt"), "old");
        try (StagedFile f = root.stage(root.resolve("a.txt"))) {
            assertThat(root.checkTarget(f, "a.txt").exists()).isTrue();
            f.write("new".getBytes(StandardCharsets.UTF_8));
            f.commit(null, null);
        }
        assertThat(Files.readString(ws.resolve("a.txt"))).isEqualTo("new");
    }

    @Test
    void anUncommittedStagedFileLeavesNothingAndKeepsTheTarget() throws Exception {
        Files.writeString(ws.resolve("a.txt"), "old");
        try (StagedFile f = root.stage(root.resolve("a.txt"))) {
            f.write("partial".getBytes(StandardCharsets.UTF_8));
        }
        assertThat(Files.readString(ws.resolve("a.txt"))).isEqualTo("old");
        assertThat(tree(ws)).containsExactly("", "a.txt");
    }

    @Test
    void theStagingFileIsAtTheTopOfTheRootUnderAReservedName() throws Exception {
        try (StagedFile f = root.stage(root.resolve("deep/down/a.txt"))) {
            f.write(new byte[] {1});
            try (SafeDirectory top = root.openRoot()) {
                assertThat(top.allNames()).anyMatch(n -> Reserved.isReserved(n) && n.endsWith(Reserved.FILE));
                assertThat(top.names()).containsExactly("deep");
            }
        }
    }

    @Test
    void checkTargetRefusesADirectoryAndALink() throws Exception {
        Files.createDirectories(ws.resolve("dir"));
        Files.createSymbolicLink(ws.resolve("lnk"), fs.getPath("a.txt"));
        try (StagedFile f = root.stage(ws.resolve("dir"))) {
            assertThat(refusal(() -> {
                try {
                    root.checkTarget(f, "dir");
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            }).code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        }
        try (StagedFile f = root.stage(ws.resolve("lnk"))) {
            assertThat(refusal(() -> {
                try {
                    root.checkTarget(f, "lnk");
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            }).code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        }
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void onTheRealDiskAStagedFileGoesIntoTheDirectoryThatWasCheckedEvenWhenItIsSwappedForALink() throws Exception {
        Path disk = Files.createDirectories(tmp.resolve("root"));
        Path out = Files.createDirectories(tmp.resolve("outside"));
        Files.createDirectories(disk.resolve("d"));
        ConfinedRoot r = ConfinedRoot.of(disk);
        try (StagedFile f = r.stage(r.resolve("d/a.txt"))) {
            f.write("data".getBytes(StandardCharsets.UTF_8));
            Files.move(disk.resolve("d"), disk.resolve("d-moved"));
            Files.createSymbolicLink(disk.resolve("d"), out);
            f.commit(null, null);
        }
        assertThat(Files.readString(disk.resolve("d-moved/a.txt"))).isEqualTo("data");
        assertThat(tree(out)).containsExactly("");
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void onTheRealDiskAReadOnlyTopStagesBesideTheTarget() throws Exception {
        Path disk = Files.createDirectories(tmp.resolve("root"));
        Path sub = Files.createDirectories(disk.resolve("sub"));
        ConfinedRoot r = ConfinedRoot.of(disk);
        Files.setPosixFilePermissions(disk, PosixFilePermissions.fromString("r-xr-xr-x"));
        Assumptions.assumeFalse(Files.isWritable(disk), "runs as a user who may write read-only directories (root)");
        try (StagedFile f = r.stage(r.resolve("sub/a.txt"))) {
            f.write("x".getBytes(StandardCharsets.UTF_8));
            try (Stream<Path> s = Files.list(sub)) {
                assertThat(s.map(p -> p.getFileName().toString())).singleElement().matches(Reserved::isReserved);
            }
            f.commit(null, null);
        } finally {
            Files.setPosixFilePermissions(disk, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        assertThat(Files.readString(sub.resolve("a.txt"))).isEqualTo("x");
        assertThat(tree(disk)).containsExactly("", "sub", "sub/a.txt");
    }

    // ---------------------------------------------------------------------------- deletion

    @Test
    void deleteTreeRemovesEverythingBelowWithoutFollowingLinks() throws Exception {
        Files.createDirectories(ws.resolve("t/a/b"));
        Files.writeString(ws.resolve("t/a/b/f.txt"), "f");
        Files.createSymbolicLink(ws.resolve("t/a/out"), outside);
        Files.createSymbolicLink(ws.resolve("t/secret.lnk"), outside.resolve("secret.txt"));
        assertThat(root.deleteTree(root.resolveEntry("t"))).isTrue();
        assertThat(ws.resolve("t")).doesNotExist();
        assertThat(tree(outside)).containsExactly("", "secret.txt");
        assertThat(root.deleteTree(root.resolveEntry("t"))).isFalse();
    }

    @Test
    void deleteTreeRemovesATreeDeeperThanTheHandlesItHoldsOpen() throws Exception {
        int depth = SafeDirectory.MAX_DELETE_DEPTH * 3 + 10;     // four passes
        SafeDirectory d = root.openRoot();
        try {
            for (int i = 0; i < depth; i++) {
                SafeDirectory next = d.mkdir("a");
                d.close();
                d = next;
            }
            d.createFile("bottom.txt").close();
        } finally {
            d.close();
        }

        assertThat(root.deleteTree(root.resolveEntry("a"))).isTrue();

        assertThat(tree(ws)).containsExactly("");
    }

    @Test
    void treeSizeCountsEveryFileHoweverManyDirectoriesStandSideBySide() throws Exception {
        int dirs = SafeDirectory.MAX_WALK_OPEN + 100;       // more than the walk may hold open at once
        for (int i = 0; i < dirs; i++) {
            Path d = Files.createDirectories(ws.resolve("t/d" + i));
            Files.write(d.resolve("f"), new byte[] {1, 2, 3});
        }
        Files.createSymbolicLink(ws.resolve("t/out"), outside);

        try (SafeDirectory top = root.openRoot()) {
            assertThat(top.treeSize("t")).isEqualTo(3L * dirs);
        }
    }

    @Test
    void deleteTreeOfALinkDeletesOnlyTheLink() throws Exception {
        Files.createSymbolicLink(ws.resolve("out"), outside);
        assertThat(root.deleteTree(ws.resolve("out"))).isTrue();
        assertThat(Files.exists(ws.resolve("out"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(tree(outside)).containsExactly("", "secret.txt");
    }

    @Test
    void clearEmptiesTheRootAndKeepsIt() throws Exception {
        Files.createDirectories(ws.resolve("a/b"));
        Files.writeString(ws.resolve(Reserved.newName(Reserved.FILE)), "x");
        root.clear();
        assertThat(tree(ws)).containsExactly("");
    }

    // ---------------------------------------------------------------------------- sweep

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void sweepDeletesTheStagingEntriesOfADeadProcessAndKeepsThoseOfLiveOnes() throws Exception {
        Process dead = new ProcessBuilder("true").start();
        dead.waitFor();
        long deadPid = dead.pid();
        String mine = Reserved.newName(Reserved.FILE);
        String theirs = mine.replaceFirst("\\.[0-9]+\\.[0-9a-z]+-", "." + deadPid + ".0-");
        String theirDir = Reserved.newName(Reserved.DIR).replaceFirst("\\.[0-9]+\\.[0-9a-z]+-", "." + deadPid + ".0-");
        String otherHost = mine.replaceFirst("^\\.wt-[0-9a-f]{4}", ".wt-" + ("0000".equals(mine.substring(4, 8)) ? "ffff"
                : "0000"));
        String legacy = ".wt-0123456789abcdef.tmp";
        for (String n : List.of(mine, theirs, otherHost, legacy)) {
            Files.writeString(ws.resolve(n), "partial");
        }
        Files.createDirectories(ws.resolve(theirDir).resolve("inside"));
        assertThat(Reserved.isReserved(theirs)).isTrue();
        // job output: a dead process's directory goes, this process's stays
        String deadOwner = Reserved.owner().replaceFirst("\\.[0-9]+\\.[0-9a-z]+$", "." + deadPid + ".0");
        Files.createDirectories(ws.resolve(".worktarget/exec/" + deadOwner));
        Files.writeString(ws.resolve(".worktarget/exec/" + deadOwner + "/j1.stdout"), "old output");
        try (SafeDirectory d = root.jobOutputDirectory()) {
            d.createFile("j2.stdout").close();
        }
        assertThat(root.sweep()).isEqualTo(4);
        try (SafeDirectory top = root.openRoot()) {
            assertThat(top.allNames()).containsExactlyInAnyOrder(mine, otherHost, ".worktarget");
        }
        assertThat(tree(ws.resolve(".worktarget/exec"))).containsExactly("", Reserved.owner(),
                Reserved.owner() + "/j2.stdout");
    }
}
