package org.vancetope.worktarget.backend.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * A tenant's data is out of reach of the other users of the machine: the directories the backend makes for a
 * tenant and its projects, in the workspace and among the HOMEs, are mode 0700 (a job's files, its
 * credentials and a set-user-id program it made cannot be reached through them), whatever the umask.
 */
@EnabledOnOs({OS.LINUX, OS.MAC})
class PrivateDirectoriesTest {
    private static final ToolContext P1 = new ToolContext("p1", "s1", "acme", "proj", "alice");

    @TempDir
    Path tmp;
    private WorkspaceBackend work;

    @AfterEach
    void close() {
        if (work != null) {
            work.close();
        }
    }

    private Map<String, Object> call(String tool, Object... kv) throws ToolException {
        Map<String, Object> p = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            p.put((String) kv[i], kv[i + 1]);
        }
        BackendTool t = work.tools().stream().filter(x -> x.spec().name().equals(tool)).findFirst().orElseThrow();
        return t.invoke(p, P1);
    }

    private static String mode(Path dir) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(dir));
    }

    @Test
    void theTenantsAndProjectsDirectoriesOfRootDirsAndHomesAreForTheServersUserAlone() throws Exception {
        work = WorkspaceBackend.builder().workspaceRoot(tmp.resolve("workspace")).homesRoot(tmp.resolve("homes"))
                .hostEnvironment(Map.of("PATH", "/usr/bin:/bin")).build();

        call("work_file_write", "path", "a.txt", "content", "x");
        call("work_exec_run", "command", "echo hi > \"$HOME\"/made-by-job", "waitMs", 30_000);

        Path workspace = tmp.resolve("workspace").toRealPath();
        assertThat(mode(workspace.resolve("acme"))).isEqualTo("rwx------");
        assertThat(mode(workspace.resolve("acme/proj"))).isEqualTo("rwx------");
        Path homes = tmp.resolve("homes").toRealPath();
        assertThat(Files.exists(homes.resolve("acme/proj/made-by-job"))).isTrue();
        assertThat(mode(homes.resolve("acme"))).isEqualTo("rwx------");
        assertThat(mode(homes.resolve("acme/proj"))).isEqualTo("rwx------");
    }
}
