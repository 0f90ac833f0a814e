package org.vancetope.worktarget.backend.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.testfixtures.ChildMain;

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
        Process child = ChildMain.start(RunHolder.class, ws.toString());
        try {
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
            }
        } finally {
            child.destroyForcibly();
        }
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

    @Test
    void theRootDirsOfARunOfAnotherHostStay() throws Exception {
        WorkspaceBackend first = open(true);
        Path temp = first.tempRootDir(P1).path();
        first.close();
        Path descriptor = descriptor(temp.getFileName().toString());
        String text = Files.readString(descriptor);
        String run = text.lines().filter(l -> l.startsWith("run=")).findFirst().orElseThrow().substring(4);
        String otherHost = run.startsWith("0000") ? "0001" : "0000";
        Files.writeString(descriptor, text.replace("run=" + run, "run=" + otherHost + run.substring(4)));

        try (WorkspaceBackend next = open(true)) {
            assertThat(temp).as("a run on a host whose processes cannot be checked from here").isDirectory();
            assertThat(next.rootDirNames("acme", "proj")).containsExactly(temp.getFileName().toString());
        }
    }
}
