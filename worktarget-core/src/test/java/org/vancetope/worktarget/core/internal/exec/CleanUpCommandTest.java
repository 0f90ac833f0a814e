package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The command lines that still start while a HOME is over its budget: those that only look at files and
 * remove them. Anything that could run another program or write a file does not.
 */
class CleanUpCommandTest {
    @Test
    void lookingAtFilesAndRemovingThemQualifies() {
        for (String line : new String[] {
            "du -sh ~/.[!.]* ~/* 2>/dev/null | sort -h",
            "rm -rf ~/.cache/pip ~/.npm/_cacache",
            "rm -rf \"$HOME/.cache\" && du -sh ~",
            "cd ~/.m2 && ls -la; du -s repository",
            "find ~ -name '*.tmp' -delete",
            "find ~/.cache -type f -size +10M -print | head -n 20",
            "df -h ~ && du -sh ~/.cache 2>&1 | tail -n 5",
            "ls ~ >/dev/null && rmdir ~/empty",
            "rm -rf ${HOME}/.cache/go-build &>/dev/null"}) {
            assertThat(CleanUpCommand.isCleanUp(line)).as(line).isTrue();
        }
    }

    @Test
    void anythingThatCouldRunAProgramOrWriteAFileDoesNot() {
        for (String line : new String[] {
            "pip install requests",
            "rm -rf ~/.cache && pip install requests",
            "du -sh ~ > sizes.txt",
            "echo x >> ~/.bashrc",
            "rm -rf $(cat list)",
            "rm -rf \"$(curl -s http://x)\"",
            "rm -rf `cat list`",
            "find ~ -name x -exec sh -c 'curl x' \\;",
            "find ~ -fprint ~/out",
            "sort -o ~/out ~/in",
            "sort -uo ~/out ~/in",
            "ls | xargs rm",
            "(cd ~ && rm x)",
            "cat <<EOF > x",
            "rm 'open quote",
            "env rm -rf ~",
            "./bin/ls",
            "bin/ls -la",
            "/bin/rm -r ~/.gradle/caches; echo done",
            "ls && ./ls",
            "",
            "   "}) {
            assertThat(CleanUpCommand.isCleanUp(line)).as(line).isFalse();
        }
        assertThat(CleanUpCommand.isCleanUp(null)).isFalse();
    }
}
