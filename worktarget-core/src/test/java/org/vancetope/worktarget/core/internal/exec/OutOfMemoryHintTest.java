package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.spi.ToolException;

/**
 * A job that the kernel's out-of-memory killer ends says so in its result's hint: "Killed" and exit code
 * 137 alone do not tell a caller that running the command again ends the same way. Proven with a real
 * out-of-memory kill where the test may make a memory control group of its own (root, cgroup v1 or v2 with
 * the memory controller), and on the parts elsewhere.
 */
class OutOfMemoryHintTest {
    private static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin");
    private static final long LIMIT_BYTES = 64L * 1024 * 1024;

    @TempDir
    Path dir;
    private final ExecEngine engine = ExecEngine.builder().build();
    private Path group;

    @AfterEach
    void tearDown() throws IOException {
        engine.close();
        if (group != null) {
            Files.deleteIfExists(group);     // empty once its job ended: a control group is removed by rmdir
        }
    }

    private ExecResult run(String command) throws ToolException {
        return engine.run(new ExecRequest("s", command, root(dir), ENV, 120_000L, null, null));
    }

    @Test
    void aJobTheOutOfMemoryKillerEndsGetsAHintThatSaysSo() throws Exception {
        group = memoryGroup();
        assumeTrue(group != null, "no memory control group can be made here (needs root and the memory controller)");
        long before = ProcTable.oomKills();
        // the job moves itself into the group, then holds a line of 400 MB in memory (tail must keep it whole)
        ExecResult r = run("echo $$ > " + group.resolve("cgroup.procs") + " && head -c 400000000 /dev/zero | tail -n 1 "
                + "> /dev/null");
        assertThat(ProcTable.oomKills()).as("the kernel counted the kill").isGreaterThan(before);
        assertThat(r.status()).isEqualTo(JobStatus.FAILED);
        assertThat(r.exitCode()).isEqualTo(137);
        assertThat(r.hint()).contains("out-of-memory killer ended").contains("ran out of memory")
                .contains("fewer parallel workers");
    }

    @Test
    void aJobKilledBySigkillWithoutTheOutOfMemoryKillerGetsNoSuchHint() throws Exception {
        ExecResult r = run("kill -9 $$");
        assertThat(r.exitCode()).isEqualTo(137);
        assertThat(r.hint()).isNull();
    }

    @Test
    void anExitCodeOf137ByItselfGetsNoSuchHint() throws Exception {
        assertThat(run("exit 137").hint()).isNull();
    }

    @Test
    void theHintNeedsBothTheSignalsExitCodeAndAKillWhileTheJobRan() {
        assertThat(ExecResults.outOfMemoryHint(137, 1)).contains("ended 1 process on this machine");
        assertThat(ExecResults.outOfMemoryHint(137, 3)).contains("ended 3 processes");
        assertThat(ExecResults.outOfMemoryHint(137, 0)).isNull();
        assertThat(ExecResults.outOfMemoryHint(1, 5)).isNull();
        assertThat(ExecResults.outOfMemoryHint(143, 5)).isNull();
    }

    @Test
    void theKillCountIsReadFromVmstat() {
        assertThat(ProcTable.oomKills("nr_free_pages 1234\noom_kill 7\npgfault 9\n".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo(7);
        assertThat(ProcTable.oomKills("oom_kill 0".getBytes(StandardCharsets.US_ASCII))).isZero();
        assertThat(ProcTable.oomKills("oom_kill_other 5\n".getBytes(StandardCharsets.US_ASCII))).isEqualTo(-1);
        assertThat(ProcTable.oomKills("oom_kill x\n".getBytes(StandardCharsets.US_ASCII))).isEqualTo(-1);
        assertThat(ProcTable.oomKills(new byte[0])).isEqualTo(-1);
        if (Files.isReadable(Path.of("/proc/vmstat"))) {
            assertThat(ProcTable.oomKills()).isGreaterThanOrEqualTo(0);
        }
    }

    /** A memory control group of 64 MiB below this JVM's own, or null where none can be made. */
    private static Path memoryGroup() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                String[] f = line.split(":", 3);
                if (f.length < 3) {
                    continue;
                }
                Path made;
                if (List.of(f[1].split(",")).contains("memory")) {
                    made = make(Path.of("/sys/fs/cgroup/memory" + f[2]), "memory.limit_in_bytes");
                } else if (f[0].equals("0") && f[1].isEmpty()
                        && Files.readString(Path.of("/sys/fs/cgroup/cgroup.controllers")).contains("memory")) {
                    made = make(Path.of("/sys/fs/cgroup" + f[2]), "memory.max");
                } else {
                    continue;
                }
                if (made != null) {
                    return made;
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return null;
    }

    private static Path make(Path parent, String limitFile) {
        Path g = parent.resolve("worktarget-oom-test-" + UUID.randomUUID());
        try {
            Files.createDirectory(g);
            Files.writeString(g.resolve(limitFile), Long.toString(LIMIT_BYTES));
            for (String noSwap : new String[] {"memory.memsw.limit_in_bytes", "memory.swap.max"}) {
                try {
                    Files.writeString(g.resolve(noSwap), noSwap.endsWith("max") ? "0" : Long.toString(LIMIT_BYTES));
                } catch (IOException e) {
                    // no swap accounting here: without swap the limit alone ends the job
                }
            }
            return g;
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(g);
            } catch (IOException ignored) {
                // nothing was made
            }
            return null;
        }
    }
}
