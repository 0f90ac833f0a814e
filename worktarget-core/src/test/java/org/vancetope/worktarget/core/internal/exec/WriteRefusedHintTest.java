package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * A command that failed because it could not write somewhere gets a hint that says where a job may write and
 * how to install there: into the system's directories (pip, npm -g, make install, apt), Debian's refusal of a
 * system-wide pip install, and a full disk. A full disk is written by a real job ({@code /dev/full}); a
 * read-only sandbox is in {@link BubblewrapIsolationTest}; the other programs' own words are given as their
 * stderr (running them would need a package index or another user than the tests' root).
 */
@EnabledOnOs(OS.LINUX)
class WriteRefusedHintTest extends JobHintTestBase {
    private static final Path WORK = Path.of("/srv/ws/acme/proj/r1");
    private static final String HOME = "/srv/homes/acme/proj";

    private static String hint(String stderr, boolean sandboxed) {
        return WriteRefusedHint.of(stderr, WORK, HOME, sandboxed);
    }

    @Test
    void aFullDiskIsSaidWithTheWorkDirectorysFreeSpace() throws Exception {
        ExecResult r = run("cp /etc/hostname /dev/full");

        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.hint()).startsWith("The disk the command wrote to is full, or its quota used up (No space left "
                + "on device): the work directory's file system has ").contains(" MiB free now.")
                .contains("Free space first").contains("--no-cache-dir");
    }

    @Test
    void npmInstallingGloballyIsToldWhereToInstall() {
        String h = hint("npm ERR! code EACCES\nnpm ERR! syscall mkdir\nnpm ERR! path /usr/local/lib/node_modules/"
                + "typescript\nnpm ERR! Error: EACCES: permission denied, mkdir '/usr/local/lib/node_modules/typescript'",
                false);
        assertThat(h).isEqualTo("The command was refused access to '/usr/local/lib/node_modules/typescript': this "
                + "server's user may not write there. Jobs may write in the work directory, in HOME "
                + "(/srv/homes/acme/proj) and in /tmp; sudo does not help (nobody can answer its prompt). Install "
                + "into those instead: a virtual environment in the work directory (python3 -m venv .venv, then "
                + ".venv/bin/pip install ...), npm install without -g (npx runs what it installed), cargo install "
                + "--root ~/.local, go install with GOBIN=$HOME/bin, or ./configure --prefix=$HOME/.local before make "
                + "install.");
    }

    @Test
    void pipAndMakeInstallIntoTheSystemAreToldWhereToInstall() {
        assertThat(hint("ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied: "
                + "'/usr/local/lib/python3.11/dist-packages/requests'\nConsider using the `--user` option", false))
                .startsWith("The command was refused access to '/usr/local/lib/python3.11/dist-packages/requests'");
        assertThat(hint("install: cannot create regular file '/usr/local/bin/tool': Permission denied", true))
                .startsWith("The command was refused access to '/usr/local/bin/tool': the sandbox does not let jobs "
                        + "write there.");
        assertThat(hint("sh: 1: cannot create /etc/motd: Read-only file system", true))
                .startsWith("The command could not write '/etc/motd': this server's sandbox keeps it read-only.");
        assertThat(hint("Error: EROFS: read-only file system, open '/usr/lib/x.json'", false))
                .startsWith("The command could not write '/usr/lib/x.json': its file system is read-only.");
    }

    @Test
    void aptWithoutRootIsToldToAskTheOperator() {
        assertThat(hint("E: Could not open lock file /var/lib/dpkg/lock-frontend - open (13: Permission denied)\n"
                + "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), are you root?", false))
                .isEqualTo("The command was refused '/var/lib/dpkg/lock-frontend': installing system packages needs "
                        + "root, which jobs do not have (sudo does not help: nobody can answer its prompt). Install "
                        + "for the user instead, where a job may write (the work directory, HOME (/srv/homes/acme/proj) "
                        + "and /tmp), or ask the server's operator to install the package on the machine.");
    }

    @Test
    void theShellThatReportsARefusedWriteIsNotTakenForWhatItWrote() {
        assertThat(hint("/bin/sh: 1: cannot create /etc/motd: Read-only file system\n", true))
                .startsWith("The command could not write '/etc/motd': this server's sandbox keeps it read-only.");
        assertThat(hint("/bin/sh: 1: cannot create /proc/sys/kernel/core_pattern: Read-only file system\n", true))
                .as("/proc is the job's own").isNull();
    }

    @Test
    void debiansRefusalOfASystemWidePipInstallPointsToAVirtualEnvironment() {
        assertThat(hint("error: externally-managed-environment\n\n× This environment is externally managed\n"
                + "╰─> To install Python packages system-wide, try apt install\n", false))
                .startsWith("pip refused to install into the Python the system manages (externally-managed-environment)."
                        + " Do not pass --break-system-packages;").contains("python3 -m venv .venv");
    }

    @Test
    void aRefusalInsideThePlacesAJobMayWriteGetsNoHint() {
        assertThat(hint("touch: cannot touch '/srv/ws/acme/proj/r1/ro/x': Permission denied", false)).isNull();
        assertThat(hint("mkdir: cannot create directory '/srv/homes/acme/proj/.cache': Permission denied", false))
                .isNull();
        assertThat(hint("cp: cannot create regular file '/tmp/x': Permission denied", false)).isNull();
        assertThat(hint("touch: cannot touch 'relative/x': Permission denied", false)).isNull();
    }

    @Test
    void aRefusedReadOrRunGetsNoHint() {
        assertThat(hint("cat: /etc/shadow: Permission denied", false)).isNull();
        assertThat(hint("sh: 1: /usr/local/bin/tool: Permission denied", false)).isNull();
        assertThat(hint("grep: /root/.ssh: Permission denied", false)).isNull();
        assertThat(hint("sh: 1: ./build.sh: Permission denied", false)).isNull();
        assertThat(hint("sh: 1: /usr/local/bin/install-deps: Permission denied", false)).as("a word in a path")
                .isNull();
    }

    @Test
    void otherErrorsAndNoStderrGetNoHint() {
        assertThat(hint("fatal: not a git repository", false)).isNull();
        assertThat(hint("", false)).isNull();
        assertThat(hint(null, false)).isNull();
    }

    @Test
    void aJobThatSucceededDespiteSuchWordsGetsNoHint() throws Exception {
        ExecResult r = run("echo 'touch: cannot touch /usr/x: Permission denied' >&2");

        assertThat(r.exitCode()).isZero();
        assertThat(r.hint()).isNull();
    }
}
