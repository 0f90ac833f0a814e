package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A command that only changes the state of its own shell ({@code cd backend}, {@code export A=1},
 * {@code . venv/bin/activate}) gets a hint that the state ends with the call, since every {@code exec_run}
 * starts a new shell; anything that does work beside it gets none.
 */
class ShellStateHintTest {

    @Test
    void aLoneCdNamesTheDirectoryAsCwd() {
        assertThat(ExecResults.shellStateHint("cd backend")).contains("cwd 'backend'").contains("'cd backend && make'");
        assertThat(ExecResults.shellStateHint("  cd src/main ;  ")).contains("cwd 'src/main'");
        assertThat(ExecResults.shellStateHint("pushd web")).contains("cwd 'web'");
    }

    @Test
    void aCdWhoseDirectoryIsNotAPlainRelativeNameGetsAPlaceholder() {
        for (String command : new String[] {"cd", "cd /tmp", "cd ..", "cd -", "cd ~/x", "cd \"$DIR\"", "cd a b"}) {
            assertThat(ExecResults.shellStateHint(command)).as(command).contains("cwd 'DIR'");
        }
    }

    @Test
    void variablesAndSourcedScriptsPointToEnv() {
        for (String command : new String[] {"export NODE_ENV=test", "A=1", "A=1; export A", "source venv/bin/activate",
                ". ./env.sh", "unset CI", "set -e", "umask 077", "alias ll=ls"}) {
            assertThat(ExecResults.shellStateHint(command)).as(command).contains("pass variables in env")
                    .doesNotContain("cwd");
        }
    }

    @Test
    void aMixOfCdAndVariablesNamesTheDirectory() {
        assertThat(ExecResults.shellStateHint("cd app && export PORT=8080")).contains("cwd 'app'");
    }

    @Test
    void commandsThatDoWorkGetNoHint() {
        for (String command : new String[] {"cd backend && make", "cd x; ls", "ls", "echo cd", "A=1 ./run.sh",
                "export A=$(date)", "cd x | cat", "cd `pwd`", "source env.sh > out", "make; cd x", "", "  ",
                "cd x\nnpm test"}) {
            assertThat(ExecResults.shellStateHint(command)).as(command).isNull();
        }
    }

    @Test
    void commandsThatPrintWithoutArgumentsGetNoHint() {
        for (String command : new String[] {"export", "alias", "set", "umask", "declare", "hash"}) {
            assertThat(ExecResults.shellStateHint(command)).as(command).isNull();
        }
    }

    @Test
    void aLongScriptIsNotTakenForALoneCd() {
        assertThat(ExecResults.shellStateHint("cd x; ".repeat(200))).isNull();
    }
}
