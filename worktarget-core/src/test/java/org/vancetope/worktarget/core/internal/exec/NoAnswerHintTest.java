package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.vancetope.worktarget.spi.ToolException;

/**
 * A command that stopped because it wanted an answer from a terminal (sudo's password, git's credentials,
 * ssh's host key, docker's TTY, apt's confirmation) gets a hint that says so and what to do instead: a job
 * has no terminal, and the same command run again ends the same way. The programs' own words are printed by
 * real jobs (the programs themselves would need a network, an account or a package manager here).
 */
@EnabledOnOs(OS.LINUX)
class NoAnswerHintTest extends JobHintTestBase {
    private ExecResult failingWith(String stderr) throws ToolException {
        return run("printf '%s\\n' '" + stderr.replace("'", "'\\''") + "' >&2; exit 1");
    }

    @Test
    void sudoAskingForAPasswordIsExplained() throws Exception {
        assertThat(failingWith("sudo: a terminal is required to read the password; either use the -S option to read "
                + "from standard input or configure an askpass helper").hint()).startsWith("sudo asked for a password")
                .contains("sudo -n");
        assertThat(failingWith("sudo: a password is required").hint()).startsWith("sudo asked for a password");
        assertThat(failingWith("sudo: no tty present and no askpass program specified").hint())
                .startsWith("sudo asked for a password");
    }

    @Test
    void gitAskingForCredentialsIsExplained() throws Exception {
        assertThat(failingWith("fatal: could not read Username for 'https://github.com': terminal prompts disabled")
                .hint()).startsWith("git asked for the remote's credentials").contains("SSH remote");
    }

    @Test
    void sshAskingToConfirmAHostKeyIsExplained() throws Exception {
        assertThat(failingWith("Host key verification failed.").hint()).startsWith("ssh asked to confirm the host's key")
                .contains("StrictHostKeyChecking=accept-new");
    }

    @Test
    void dockerAskingForATerminalIsExplained() throws Exception {
        assertThat(failingWith("the input device is not a TTY").hint()).contains("drop the -t");
    }

    @Test
    void aptAskingToContinueIsExplainedFromStdout() throws Exception {
        ExecResult r = run("echo 'Do you want to continue? [Y/n] Abort.'; exit 1");
        assertThat(r.hint()).isEqualTo("apt asked for a confirmation no one can give, and stopped: add -y (apt-get "
                + "install -y ...).");
    }

    @Test
    void theSameWordsInASucceedingJobOrInOtherTextGetNoHint() throws Exception {
        ExecResult ok = run("echo 'Host key verification failed.' >&2");
        assertThat(ok.exitCode()).isZero();
        assertThat(ok.hint()).isNull();
        assertThat(failingWith("a note about Host key verification failed. later").hint()).isNull();
        assertThat(ExecResults.noAnswerHint(null, null)).isNull();
        assertThat(ExecResults.noAnswerHint("", "sudo: unknown user x")).isNull();
    }
}
