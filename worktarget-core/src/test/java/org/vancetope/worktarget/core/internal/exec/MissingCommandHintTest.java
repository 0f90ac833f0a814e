package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.spi.ToolException;

/**
 * A command the shell did not find gets a hint that says what the job's PATH has instead, or that it has
 * nothing of that name; a script of the work directory that "is not found" although it is there gets the
 * reason (Windows line ends, an interpreter that is not installed). Proven with real jobs in {@code /bin/sh}.
 */
@EnabledOnOs(OS.LINUX)
class MissingCommandHintTest {
    @TempDir
    Path dir;
    @TempDir
    Path bin;
    private Path root;
    private ExecEngine engine;

    @BeforeEach
    void setUp() throws IOException {
        root = Files.createDirectories(dir.resolve("work"));
        engine = ExecEngine.builder().build();
    }

    @AfterEach
    void tearDown() {
        engine.close();
    }

    /** Runs with a PATH of the test's own bin directory and {@code /nowhere} only. */
    private ExecResult run(String command) throws ToolException {
        return run(command, null);
    }

    private ExecResult run(String command, String cwd) throws ToolException {
        return engine.run(new ExecRequest("s", command, root(root), Map.of("PATH", path()), 30_000L, null, null, null,
                cwd));
    }

    private String path() {
        return bin + ":/nowhere";
    }

    private void program(String name) throws IOException {
        Path p = Files.writeString(bin.resolve(name), "#!/bin/sh\necho " + name + " ran\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private void script(String relative, String text) throws IOException {
        Path p = root.resolve(relative);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text, StandardCharsets.ISO_8859_1);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void aProgramThatIsNotOnThePathIsNamedWithThePathLookedIn() throws Exception {
        ExecResult r = run("no-such-program-xyz --version");

        assertThat(r.exitCode()).isEqualTo(127);
        assertThat(r.hint()).isEqualTo("'no-such-program-xyz' is not a command here: no program of that name is on "
                + "the job's PATH (" + path() + "). Check its spelling and see what is installed ('command -v NAME', "
                + "'ls /usr/bin'), or install it first where you may.");
    }

    @Test
    void aNameThatIsInstalledUnderAnotherNameGetsThatName() throws Exception {
        program("fdfind");

        ExecResult r = run("fd pattern");

        assertThat(r.hint()).isEqualTo("'fd' is not installed here, but 'fdfind' is: run the command with fdfind "
                + "instead.");
    }

    @Test
    void pipWithoutPip3ButWithPython3GetsTheModuleForm() throws Exception {
        program("python3");

        assertThat(run("pip install requests").hint()).startsWith("'pip' is not installed here, but 'python3 -m pip' "
                + "is");
        assertThat(run("python script.py").hint()).startsWith("'python' is not installed here, but 'python3' is");
    }

    @Test
    void aScriptWithWindowsLineEndsIsToldToConvertThem() throws Exception {
        script("build.sh", "#!/bin/sh\r\necho hi\r\n");

        ExecResult r = run("./build.sh");

        assertThat(r.exitCode()).isEqualTo(127);
        assertThat(r.hint()).isEqualTo("'./build.sh' is there, but its first line ends with a carriage return (Windows "
                + "line ends), so the system looks for an interpreter whose name ends with one. Convert the file's line "
                + "ends, e.g. sed -i 's/\\r$//' './build.sh', and run it again.");
    }

    @Test
    void aScriptWhoseInterpreterIsNotInstalledSaysWhichAndWhatIsInstead() throws Exception {
        program("python3");
        script("tool.py", "#!/usr/local/bin/python\nprint('hi')\n");
        script("other.py", "#!/usr/bin/no-such-interpreter -x\nprint('hi')\n");

        assertThat(run("./tool.py").hint()).isEqualTo("'./tool.py' is there, but the interpreter its first line names "
                + "(/usr/local/bin/python) is not installed here; 'python3' is on the PATH: change the line to "
                + "#!/usr/bin/env python3, or run 'python3 ./tool.py'.");
        assertThat(run("./other.py").hint()).contains("(/usr/bin/no-such-interpreter) is not installed here. Change "
                + "the line to an interpreter that is installed");
    }

    @Test
    void aScriptThatRunsAProgramThroughEnvThatIsNotOnThePathSaysSo() throws Exception {
        program("python3");
        script("tool.py", "#!/usr/bin/env python\nprint('hi')\n");

        ExecResult r = run("./tool.py");

        assertThat(r.exitCode()).isEqualTo(127);
        assertThat(r.hint()).isEqualTo("'python' is not installed here, but 'python3' is: run the command with python3 "
                + "instead. If a script's first line runs it (#!/usr/bin/env python), change that line.");
    }

    @Test
    void aScriptWithoutTheExecutePermissionIsToldHowToRunIt() throws Exception {
        Files.createDirectories(root.resolve("sub"));
        Files.writeString(root.resolve("sub/run.sh"), "echo hi\n");

        ExecResult r = run("./run.sh", "sub");

        assertThat(r.exitCode()).isEqualTo(126);
        assertThat(r.hint()).isEqualTo("'./run.sh' is a file without the execute permission (files written with "
                + "file_write are not executable). Run it with its interpreter, e.g. 'sh './run.sh'' or 'python3 "
                + "'./run.sh'', or make it executable first: chmod +x './run.sh'.");
    }

    @Test
    void aDirectoryOrAnExecutableFileThatIsDeniedGetsNoSuchHint() throws Exception {
        Files.createDirectories(root.resolve("adir"));

        assertThat(run("./adir").hint()).isNull();
        assertThat(MissingCommandHint.of("sh: 1: ./adir: Permission denied\n", path(), root(root), null)).isNull();
        script("ok.sh", "#!/bin/sh\n");
        assertThat(MissingCommandHint.of("sh: 1: ./ok.sh: Permission denied\n", path(), root(root), null)).isNull();
    }

    @Test
    void aScriptThatIsNotThereSaysWhereTheCommandRan() throws Exception {
        Files.createDirectories(root.resolve("sub"));

        assertThat(run("./missing.sh").hint()).isEqualTo("There is no file './missing.sh' in the work directory, where "
                + "the command ran. Check the path (file_find, file_list) and where the command runs (cwd).");
        assertThat(run("./missing.sh", "sub").hint()).startsWith("There is no file './missing.sh' in 'sub', where");
    }

    @Test
    void aScriptIsLookedForInTheDirectoryTheCommandRanIn() throws Exception {
        script("sub/build.sh", "#!/bin/sh\r\necho hi\r\n");

        assertThat(run("./build.sh", "sub").hint()).contains("carriage return");
        assertThat(run("sub/build.sh").hint()).contains("carriage return");
    }

    @Test
    void aScriptOutsideTheWorkDirectoryIsNotLookedAt() throws Exception {
        Files.writeString(dir.resolve("outside.sh"), "#!/bin/sh\r\necho hi\r\n");
        Files.setPosixFilePermissions(dir.resolve("outside.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));

        ExecResult viaDots = run("../outside.sh");
        ExecResult absolute = run(dir.resolve("outside.sh").toString());

        assertThat(viaDots.exitCode()).isEqualTo(127);
        assertThat(viaDots.hint()).isNull();
        assertThat(absolute.exitCode()).isEqualTo(127);
        assertThat(absolute.hint()).isNull();
    }

    @Test
    void aCommandThatFailsOtherwiseOrRecoversGetsNoSuchHint() throws Exception {
        assertThat(run("echo 'not found' >&2; exit 3").hint()).isNull();
        assertThat(run("no-such-program-xyz || true").hint()).isNull();
        script("fine.sh", "#!/bin/sh\nexit 127\n");
        assertThat(run("./fine.sh").hint()).isNull();
    }

    @Test
    void bashSyntaxInShKeepsItsOwnHint() throws Exception {
        assertThat(run("source env.sh").hint()).contains("dash, not bash");
    }

    @Test
    void bashWordingIsRecognizedToo() throws Exception {
        String p = path();
        assertThat(MissingCommandHint.of("bash: line 1: no-such-xyz: command not found\n", p, root(root), null))
                .startsWith("'no-such-xyz' is not a command here");
        assertThat(MissingCommandHint.of("bash: no-such-xyz: command not found", p, root(root), null))
                .startsWith("'no-such-xyz' is not a command here");
        assertThat(MissingCommandHint.of("bash: line 1: ./gone.sh: No such file or directory\n", p, root(root), null))
                .startsWith("There is no file './gone.sh'");
        assertThat(MissingCommandHint.of("/usr/bin/env: \u2018no-such-xyz\u2019: No such file or directory\n", p,
                root(root), null)).startsWith("'no-such-xyz' is not a command here").endsWith("change that line.");
        assertThat(MissingCommandHint.of("error: thing not found\n", p, root(root), null)).isNull();
        assertThat(MissingCommandHint.of("", p, root(root), null)).isNull();
    }

    @Test
    void onlyExecutableFilesInAbsoluteDirectoriesOfThePathCount() throws Exception {
        Files.writeString(bin.resolve("plain"), "not executable");
        Files.createDirectories(bin.resolve("adir"));
        program("tool");

        assertThat(MissingCommandHint.onPath("tool", bin.toString())).isTrue();
        assertThat(MissingCommandHint.onPath("plain", bin.toString())).isFalse();
        assertThat(MissingCommandHint.onPath("adir", bin.toString())).isFalse();
        assertThat(MissingCommandHint.onPath("tool", "relative/bin:" + "::")).isFalse();
        assertThat(MissingCommandHint.onPath("tool", null)).isFalse();
    }
}
