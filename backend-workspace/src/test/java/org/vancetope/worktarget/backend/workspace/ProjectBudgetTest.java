package org.vancetope.worktarget.backend.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TargetResolution;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.ManualTime;

/**
 * The disk budget of a project's RootDirs ({@code projectMaxBytes}) on the real disk: what a caller over it
 * may still do (read, delete, clean-up jobs), what it may not (write, edit, mkdir, other jobs), that a write
 * which would go over is refused before it writes, that every RootDir of the project counts and other
 * projects do not, and that a caller who cleaned up is let through once the size is measured again.
 */
class ProjectBudgetTest {
    private static final long MIB = 1024 * 1024;
    private static final ToolContext P1 = new ToolContext("p1", "s1", "acme", "proj", "alice");
    private static final ToolContext OTHER_PROJECT = new ToolContext("p2", "s2", "acme", "other", "alice");

    @TempDir
    Path tmp;
    private final ManualTime time = new ManualTime();
    private WorkspaceBackend work;

    private WorkspaceBackend backend(long projectMaxBytes) {
        work = WorkspaceBackend.builder().workspaceRoot(tmp.resolve("workspace")).homesRoot(tmp.resolve("homes"))
                .hostEnvironment(Map.of("PATH", "/usr/bin:/bin")).clock(time.clock())
                .projectMaxBytes(projectMaxBytes).build();
        return work;
    }

    @AfterEach
    void close() {
        if (work != null) {
            work.close();
        }
    }

    private Map<String, Object> call(ToolContext ctx, String tool, Object... kv) throws ToolException {
        Map<String, Object> p = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            p.put((String) kv[i], kv[i + 1]);
        }
        BackendTool t = work.tools().stream().filter(x -> x.spec().name().equals(tool)).findFirst().orElseThrow();
        return t.invoke(p, ctx);
    }

    private Map<String, Object> call(String tool, Object... kv) throws ToolException {
        return call(P1, tool, kv);
    }

    /** What a job or another process left in the caller's temp RootDir, unseen by the file tools. */
    private Path planted(String name, long bytes) throws IOException, ToolException {
        return sparse(work.resolveRoot(P1, null).resolve(name), bytes);
    }

    /** A file of {@code bytes} that takes next to no disk: one byte written at its end. */
    private static Path sparse(Path file, long bytes) throws IOException {
        try (SeekableByteChannel ch = Files.newByteChannel(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            ch.position(bytes - 1).write(ByteBuffer.wrap(new byte[1]));
        }
        return file;
    }

    private static void assertOverBudget(ThrowingCall call, String... more) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(ToolException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.BUDGET_EXCEEDED);
            assertThat(e.getMessage()).contains("project 'proj'", "disk budget of 1.0 MiB", "file_delete",
                    "project-max-mib", "measured again within 2 s");
            if (more.length > 0) {
                assertThat(e.getMessage()).contains(more);
            }
        });
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void run() throws Exception;
    }

    private static String text(int bytes) {
        return "x".repeat(bytes);
    }

    @Test
    void aWriteThatWouldTakeTheProjectOverItsBudgetIsRefusedAndWritesNothing() throws Exception {
        backend(MIB);
        call("work_file_write", "path", "a.txt", "content", text(600 * 1024));

        assertOverBudget(() -> call("work_file_write", "path", "b.txt", "content", text(600 * 1024)),
                "this file_write adds 600.0 KiB", "nothing was written");
        assertThat(work.resolveRoot(P1, null).resolve("b.txt")).doesNotExist();
    }

    @Test
    void rewritingAFileChargesOnlyWhatItGrew() throws Exception {
        backend(MIB);
        for (int i = 0; i < 5; i++) {
            call("work_file_write", "path", "a.txt", "content", text(600 * 1024 + i));
        }

        assertThat(Files.size(work.resolveRoot(P1, null).resolve("a.txt"))).isEqualTo(600 * 1024 + 4);
    }

    @Test
    void overTheBudgetWritesEditsAndMkdirAreRefusedWhileReadingListingAndDeletingGoOn() throws Exception {
        backend(MIB);
        call("work_file_write", "path", "notes.txt", "content", "keep me");
        planted("big.bin", 2 * MIB);
        time.advance(ProjectBudget.MEASURE_INTERVAL);       // the next call measures

        assertOverBudget(() -> call("work_file_write", "path", "n.txt", "content", "x"), "2.0 MiB", ", over");
        assertOverBudget(() -> call("work_file_edit", "path", "notes.txt", "oldText", "keep", "newText", "k"));
        assertOverBudget(() -> call("work_file_mkdir", "path", "d"));
        assertThat(call("work_file_read", "path", "notes.txt").get("content")).isEqualTo("keep me");
        assertThat(call("work_file_list", "path", ".").toString()).contains("big.bin");
        assertThat(call("work_file_delete", "path", "big.bin")).containsEntry("deleted", true);
    }

    @Test
    void aCallerWhoCleanedUpIsLetThroughOnceTheSizeIsMeasuredAgain() throws Exception {
        backend(MIB);
        Path big = planted("big.bin", 2 * MIB);
        assertOverBudget(() -> call("work_file_write", "path", "n.txt", "content", "x"));
        Files.delete(big);

        assertOverBudget(() -> call("work_file_write", "path", "n.txt", "content", "x"));
        time.advance(ProjectBudget.RECHECK_INTERVAL);
        assertThat(call("work_file_write", "path", "n.txt", "content", "x")).containsEntry("bytes", 1);
    }

    @Test
    void writesThatFitAreNotMeasuredAgainUntilTheMeasureIntervalPassed() throws Exception {
        backend(MIB);
        call("work_file_write", "path", "a.txt", "content", "first");
        planted("big.bin", 2 * MIB);                           // written by a job: counted from the next walk

        assertThat(call("work_file_write", "path", "b.txt", "content", "second")).containsEntry("created", true);
        time.advance(ProjectBudget.MEASURE_INTERVAL);
        assertOverBudget(() -> call("work_file_write", "path", "c.txt", "content", "third"));
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void overTheBudgetOnlyJobsThatLookAtFilesAndRemoveThemStart() throws Exception {
        backend(MIB);
        planted("big.bin", 2 * MIB);

        assertOverBudget(() -> call("work_exec_run", "command", "echo hi > out.txt"), "the job was not started",
                "rm, rmdir, du");
        Map<String, Object> du = call("work_exec_run", "command", "du -sh big.bin");
        assertThat(du.get("stdout").toString()).contains("big.bin");
        assertThat(call("work_exec_run", "command", "rm -f big.bin").get("exitCode")).isEqualTo(0);
        time.advance(ProjectBudget.RECHECK_INTERVAL);
        assertThat(call("work_exec_run", "command", "echo hi > out.txt").get("exitCode")).isEqualTo(0);
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void overTheBudgetAProgramOfTheCallersOwnDoesNotPassForACleanUpJob() throws Exception {
        backend(MIB);
        planted("big.bin", 2 * MIB);
        Files.createDirectories(work.resolveRoot(P1, null).resolve("bin"));
        planted("bin/ls", 10);

        assertOverBudget(() -> call("work_exec_run", "command", "./bin/ls"), "the job was not started",
                "each named without a path");
        assertOverBudget(() -> call("work_exec_run", "command", "ls", "env", Map.of("PATH", "./bin:/usr/bin:/bin")),
                "the job was not started", "no env parameter");
        assertOverBudget(() -> call("work_exec_run", "command", "ls", "env", Map.of("LD_PRELOAD", "./x.so")),
                "the job was not started");
        assertThat(call("work_exec_run", "command", "ls", "env", Map.of()).get("exitCode")).isEqualTo(0);
    }

    @Test
    void everyRootDirOfTheProjectCountsAndOtherProjectsDoNot() throws Exception {
        backend(MIB);
        RootDirInfo other = work.createRootDir(P1, "data", WorkspaceBackend.EPHEMERAL, null, false, null);
        sparse(other.path().resolve("dump.bin"), 2 * MIB);

        assertOverBudget(() -> call("work_file_write", "path", "a.txt", "content", "x"));
        assertThat(call(OTHER_PROJECT, "work_file_write", "path", "a.txt", "content", "x")).containsEntry("bytes", 1);
        assertThat(call("work_file_delete", "path", "dump.bin", "dirName", "data")).containsEntry("deleted", true);
    }

    @Test
    void theTransferRootsTakeRoomForEachFileReceivedAndRefuseOneThatWouldGoOver() throws Exception {
        backend(MIB);
        String drop = work.ephemeralDirs().create(P1, null, true);
        TransferScope scope = new TransferScope("acme", "proj");
        RootDirTargetResolver roots = work.transferRoots();

        assertThat(roots.rootToReceive(scope, drop, 600 * 1024).ok()).isTrue();
        TargetResolution second = roots.rootToReceive(scope, drop, 600 * 1024);
        assertThat(second.code()).isEqualTo(ErrorCode.BUDGET_EXCEEDED);
        assertThat(second.error()).contains("this transfer adds 600.0 KiB", "disk budget of 1.0 MiB",
                "transfers into its RootDirs are refused");
        assertThat(roots.root(scope, drop).ok()).as("sending a file takes no room").isTrue();
        assertThat(roots.rootToReceive(new TransferScope("acme", "other"), drop, 1).code())
                .as("another project has no such RootDir").isEqualTo(ErrorCode.NOT_FOUND);
    }

    @Test
    void withoutABudgetNothingIsRefused() throws Exception {
        backend(0);
        planted("big.bin", 64 * MIB);

        assertThat(call("work_file_write", "path", "a.txt", "content", "x")).containsEntry("bytes", 1);
        String drop = work.ephemeralDirs().create(P1, null, true);
        assertThat(work.transferRoots().rootToReceive(new TransferScope("acme", "proj"), drop, Long.MAX_VALUE).ok())
                .isTrue();
    }

    @Test
    void aBudgetBelowOneMebibyteIsRefusedWhenBuilt() {
        assertThatThrownBy(() -> WorkspaceBackend.builder().projectMaxBytes(MIB - 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0 (off) or at least 1 MiB");
        assertThatThrownBy(() -> WorkspaceBackend.builder().projectMaxBytes(-1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
