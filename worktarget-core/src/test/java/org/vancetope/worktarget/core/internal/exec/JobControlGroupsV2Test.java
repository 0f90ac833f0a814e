package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * Jobs in control groups of the cgroup v2 hierarchy: a job and everything it starts are members of its
 * group, the kill finds a process that left the job's session and cleared its environment, the group goes
 * with the tree, and a cap where the groups have no {@code pids} (or {@code memory}, {@code cpu}) controller is
 * refused saying how to enable it. Proven with real groups where this test may make them below this JVM's v2 group (root; the cap itself
 * needs the pids controller, which {@link JobControlGroupsTest} proves on v1 where v2 does not have it).
 */
@EnabledOnOs(OS.LINUX)
class JobControlGroupsV2Test {
    private static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin");

    @TempDir
    Path dir;
    private Path parent;
    private ExecEngine engine;

    @BeforeEach
    void setUp() {
        parent = testParent();
        Assumptions.assumeTrue(parent != null, "no cgroup v2 group can be made here (needs root and cgroup v2)");
    }

    @AfterEach
    void tearDown() throws IOException {
        if (engine != null) {
            engine.close();
        }
        TestGroups.removeAll(parent);
    }

    /** A fresh v2 group below this JVM's own (at the v2 mount point of this machine), or null. */
    private static Path testParent() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                if (!line.startsWith("0::")) {
                    continue;
                }
                for (Path mount : List.of(Path.of("/sys/fs/cgroup/unified"), Path.of("/sys/fs/cgroup"))) {
                    Path mine = Path.of(mount + line.substring(3));
                    if (Files.isRegularFile(mount.resolve("cgroup.controllers")) && Files.isDirectory(mine)) {
                        Path made = Files.createDirectory(mine.resolve("worktarget-test-" + UUID.randomUUID()));
                        // a group of a parent with processes may enable no controller ("no internal processes")
                        return made;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return null;
    }

    private ExecResult run(String command, long waitMs) throws Exception {
        return engine.run(new ExecRequest("s", command, root(dir), ENV, waitMs, null, null));
    }

    @Test
    void aJobAndEverythingItStartsAreMembersOfItsGroupWhichGoesWithTheTree() throws Exception {
        engine = ExecEngine.builder().settings(ExecSettings.builder().jobControlGroups(parent)
                .killGrace(Duration.ofMillis(500)).build()).build();
        ExecResult r = run("sleep 300 & sleep 300", 300);
        Path group;
        try (Stream<Path> groups = Files.list(parent)) {
            group = groups.filter(Files::isDirectory).findFirst().orElseThrow();
        }
        assertThat(group.getFileName().toString()).startsWith(JobControlGroups.PREFIX + ProcessTree.COOKIE_OWNER);
        Await.until("the shell and both sleeps are members", () -> JobControlGroups.members(group).size() == 3);

        assertThat(engine.kill("s", r.id())).isTrue();

        Await.until("the job's group is removed", () -> !Files.exists(group));
    }

    @Test
    void theKillFindsAProcessThatLeftTheSessionAndClearedItsEnvironment() throws Exception {
        engine = ExecEngine.builder().settings(ExecSettings.builder().jobControlGroups(parent)
                .killGrace(Duration.ofMillis(500)).build()).build();
        TestGroups.Escape job = TestGroups.escape(engine, dir, ENV);

        assertThat(engine.kill("s", job.id())).isTrue();

        Await.processGone(job.escaped());
    }

    @Test
    void aCapWhereTheGroupsHaveNoPidsControllerIsRefusedSayingHowToEnableIt() throws Exception {
        Assumptions.assumeFalse(Files.readString(parent.resolve("cgroup.subtree_control")).contains("pids"),
                "the pids controller is enabled for this group's children here");
        ExecSettings s = ExecSettings.builder().jobControlGroups(parent).maxJobProcesses(64).build();

        assertThatThrownBy(() -> ExecEngine.builder().settings(s).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jobControlGroups " + parent + ": no pids controller")
                .hasMessageContaining("echo +pids > " + parent.resolve("cgroup.subtree_control"));
        try (Stream<Path> groups = Files.list(parent)) {
            assertThat(groups.filter(Files::isDirectory).toList()).as("the probe is removed").isEmpty();
        }
    }

    @Test
    void memoryAndCpuCapsWhereTheGroupsHaveNoSuchControllerAreRefusedSayingHowToEnableThem() throws Exception {
        String enabled = Files.readString(parent.resolve("cgroup.subtree_control"));
        Assumptions.assumeFalse(enabled.contains("memory") || enabled.contains("cpu"),
                "the memory or cpu controller is enabled for this group's children here");
        ExecSettings memory = ExecSettings.builder().jobControlGroups(parent).maxJobMemory(64L << 20).build();
        ExecSettings cpu = ExecSettings.builder().jobControlGroups(parent).maxJobCpus(0.5).build();

        assertThatThrownBy(() -> ExecEngine.builder().settings(memory).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jobControlGroups " + parent + ": no memory controller")
                .hasMessageContaining("echo +memory > " + parent.resolve("cgroup.subtree_control"));
        assertThatThrownBy(() -> ExecEngine.builder().settings(cpu).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jobControlGroups " + parent + ": no cpu controller")
                .hasMessageContaining("echo +cpu > " + parent.resolve("cgroup.subtree_control"));
        try (Stream<Path> groups = Files.list(parent)) {
            assertThat(groups.filter(Files::isDirectory).toList()).as("the probes are removed").isEmpty();
        }
    }

    @Test
    void twoDirectoriesOfTheOneV2HierarchyAreRefused() throws Exception {
        Path a = Files.createDirectory(parent.resolve("a"));
        Path b = Files.createDirectory(parent.resolve("b"));
        ExecSettings s = ExecSettings.builder().jobControlGroups(a, b).build();

        assertThatThrownBy(() -> ExecEngine.builder().settings(s).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("jobControlGroups " + a + " and " + b + " are in the same control group "
                        + "hierarchy");
        assertThat(TestGroups.jobGroups(a)).as("the probes are removed").isEmpty();
        assertThat(TestGroups.jobGroups(b)).isEmpty();
        Files.delete(a);
        Files.delete(b);
    }
}
