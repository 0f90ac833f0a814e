package org.vancetope.worktarget.backend.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.spi.ToolContext;

/**
 * With {@code processesEndWithJvm}, the RootDirs that go with their creator and that a run left behind
 * when it ended without ending its processes (killed, or closed first) are removed by the next backend
 * that opens the workspace; those of runs still open, in this JVM or another, and the ones that stay by
 * design, are kept. Real disk, and a real child JVM killed with SIGKILL.
 */
@EnabledOnOs(OS.LINUX)
class EndedRunTest {
    private static final ToolContext P1 = new ToolContext("p1", null, "acme", "proj", null);
    private static final ToolContext P2 = new ToolContext("p2", null, "acme", "proj", null);

    @TempDir
    Path tmp;

    /** A backend whose processes end with the JVM, which removes what ended runs left at once (or not at all). */
    private WorkspaceBackend open(boolean processesEndWithJvm) {
        return open(processesEndWithJvm ? Duration.ZERO : null);
    }

    private WorkspaceBackend open(Duration keepLeftoversFor) {
        WorkspaceBackend.Builder b = WorkspaceBackend.builder().workspaceRoot(tmp.resolve("ws"))
                .homesRoot(tmp.resolve("homes")).hostEnvironment(Map.of());
        if (keepLeftoversFor != null) {
            b.processesEndWithJvm(keepLeftoversFor);
        }
        return b.build();
    }

    private Path descriptor(String dirName) {
        return tmp.resolve("ws/acme/proj/.rootdirs/" + dirName + ".properties");
    }

    private List<String> runFiles() throws Exception {
        try (Stream<Path> s = Files.list(tmp.resolve("ws/.runs"))) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void theNextRunRemovesTheRootDirsThatGoWithTheirCreatorWhenTheRunThatMadeThemWasClosedWithoutEndingThem()
            throws Exception {
        WorkspaceBackend first = open(true);
        Path temp = first.tempRootDir(P1).path();
        Files.writeString(temp.resolve("notes.txt"), "left behind");
        String drop = first.createEphemeral(P1, Map.of());
        first.createRootDir(P1, "kept", WorkspaceBackend.TEMP, null, false, null);
        first.close();     // the run ends; process p1 never did

        try (WorkspaceBackend next = open(true)) {
            assertThat(temp).doesNotExist();
            assertThat(descriptor(temp.getFileName().toString())).doesNotExist();
            assertThat(next.rootDir("acme", "proj", drop)).isEmpty();
            assertThat(next.rootDirNames("acme", "proj")).containsExactly("kept");
            assertThat(runFiles()).as("only the open run's lock file").hasSize(1).allMatch(n -> n.endsWith(".lock"));
        }
    }

    @Test
    void theRootDirsOfARunStillOpenInThisJvmStayAndKeepWorking() throws Exception {
        try (WorkspaceBackend first = open(true)) {
            Path temp = first.tempRootDir(P1).path();
            try (WorkspaceBackend second = open(true)) {
                second.tempRootDir(P2);
                assertThat(temp).isDirectory();
                assertThat(second.rootDirNames("acme", "proj")).hasSize(2);
            }
            Files.writeString(temp.resolve("still.txt"), "here");
            assertThat(first.closeProcess("p1")).hasSize(1);
            assertThat(temp).doesNotExist();
        }
    }

    @Test
    void withoutTheSettingNoRunIsRecordedAndNothingIsRemoved() throws Exception {
        WorkspaceBackend unmarked = open(false);
        Path temp = unmarked.tempRootDir(P1).path();
        unmarked.close();
        assertThat(Files.readString(descriptor(temp.getFileName().toString()))).doesNotContain("run=");

        WorkspaceBackend marked = open(true);
        Path other = marked.tempRootDir(P2).path();
        marked.close();
        try (WorkspaceBackend next = open(false)) {
            assertThat(other).as("a backend without the setting removes nothing").isDirectory();
            assertThat(next.rootDirNames("acme", "proj")).hasSize(2);
        }
        try (WorkspaceBackend next = open(true)) {
            assertThat(other).doesNotExist();
            assertThat(temp).as("a RootDir whose descriptor names no run (an older version's)").isDirectory();
            assertThat(next.rootDirNames("acme", "proj")).containsExactly(temp.getFileName().toString());
        }
    }

    @Test
    void aRunInAnotherJvmKeepsItsRootDirsWhileItLivesAndTheNextRunRemovesThemOnceItIsKilled() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                RunHolder.class.getName(), ws.toString()).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            StringBuilder log = new StringBuilder();
            for (String line; (line = out.readLine()) != null && !line.equals("ready"); ) {
                log.append(line).append('\n');
            }
            assertThat(child.isAlive()).as("the child is ready; its output: %s", log).isTrue();
            ToolContext childProcess = new ToolContext("child", null, "acme", "proj", null);
            Path temp;
            try (WorkspaceBackend whileItLives = open(true)) {
                temp = whileItLives.tempRootDir(childProcess).path();
                assertThat(temp).as("the child's temp RootDir, seen from this JVM").isDirectory();
            }
            assertThat(temp).as("kept while the child's run lives").isDirectory();

            child.destroyForcibly();     // SIGKILL: the child's run ends without ending process 'child'
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();

            try (WorkspaceBackend next = open(true)) {
                assertThat(temp).doesNotExist();
                assertThat(next.rootDirNames("acme", "proj")).isEmpty();
                assertThat(runFiles()).as("the killed run's lock file goes too").hasSize(1);
            }
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void theTemporaryFileOfARunThatEndedWhileStartingGoesOnceItIsAMinuteOldAndAYoungOneStays() throws Exception {
        Path runs = Files.createDirectories(tmp.resolve("ws/.runs"));
        Path old = Files.writeString(runs.resolve(".0123456789abcdef.tmp"), "pid 1");
        Files.setLastModifiedTime(old, FileTime.from(Instant.now().minusSeconds(600)));
        Path young = Files.writeString(runs.resolve(".fedcba9876543210.tmp"), "pid 2");

        open(true).close();

        assertThat(old).doesNotExist();
        assertThat(young).as("it may belong to a run that is starting now").exists();
    }

    @Test
    void leftoversWaitForTheirProcessesAndThenOnlyThoseOfProcessesThatDidNotComeBackGo() throws Exception {
        WorkspaceBackend first = open(true);
        Path temp1 = first.tempRootDir(P1).path();
        Path temp2 = first.tempRootDir(P2).path();
        String drop = first.createEphemeral(P2, Map.of());
        first.close();

        try (WorkspaceBackend next = open(Duration.ofHours(1))) {
            assertThat(temp1).as("kept while its process may come back").isDirectory();
            assertThat(temp2).isDirectory();
            assertThat(next.resolveRoot(P1, null)).as("process p1 comes back to its temp RootDir").isEqualTo(temp1);

            next.leftovers().sweep();     // the hour is over

            assertThat(temp1).as("p1's, which came back: it goes when p1 ends").isDirectory();
            assertThat(temp2).doesNotExist();
            assertThat(next.rootDirNames("acme", "proj")).containsExactly(temp1.getFileName().toString())
                    .doesNotContain(drop);
            assertThat(next.closeProcess("p1")).hasSize(1);
            assertThat(temp1).doesNotExist();
        }
    }

    @Test
    void aNegativeWaitIsRefused() {
        assertThatThrownBy(() -> WorkspaceBackend.builder().processesEndWithJvm(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("zero or more");
    }
}
