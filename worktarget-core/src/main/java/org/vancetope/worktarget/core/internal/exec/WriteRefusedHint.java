package org.vancetope.worktarget.core.internal.exec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The hint for a job that failed because it could not write somewhere, or null: an install into the
 * system's directories ({@code pip install}, {@code npm install -g}, {@code apt-get install}, {@code make
 * install}) that the sandbox keeps read-only or the server's user may not write, Debian's refusal of a
 * system-wide {@code pip install} (PEP 668, {@code externally-managed-environment}), and a full disk. The
 * errors say what failed, not where a job may write instead, and an agent that retries with {@code sudo}
 * or {@code --break-system-packages} meets the same wall or worse.
 */
final class WriteRefusedHint {
    /** A line that tells of a write the file system refused, and why. */
    private static final Pattern REFUSED = Pattern.compile("(?im)^.*(read-only file system|permission denied"
            + "|\\(13: Permission denied\\)).*$");
    /** An absolute path in such a line: quoted, or bare before a colon or the end of the line. */
    private static final Pattern PATH = Pattern.compile("['\"`‘](/[^'\"`’\\r\\n]+)['\"`’]|(?<![\\w.~])(/[^\\s:'\"]+)");
    /** Words of a line that tell of a write (and not of running or reading a file). */
    private static final Pattern WRITING = Pattern.compile("(?i)cannot (?:create|touch|make|open .* for writing|"
            + "remove|move|overwrite)|mkdir|open|write|copy|rename|unlink|install|lock|symlink|EROFS|EACCES|Errno 13"
            + "|Errno 30|read-only file system");
    /** pip's refusal to install into a Python the system manages (PEP 668). */
    private static final Pattern EXTERNALLY_MANAGED = Pattern.compile("(?m)error: externally-managed-environment");
    /** The kernel's answers for a full disk or a used-up quota. */
    private static final Pattern FULL = Pattern.compile("(?i)No space left on device|Disk quota exceeded");
    /** Where the system's package managers keep their locks and lists. */
    private static final List<String> PACKAGE_MANAGER = List.of("/var/lib/dpkg", "/var/lib/apt", "/var/cache/apt",
            "/var/lib/rpm", "/var/cache/dnf", "/var/lib/dnf", "/var/cache/yum", "/var/lib/pacman", "/lib/apk",
            "/var/cache/apk");
    /** The places to install into, the same in every hint. */
    private static final String INSTALL_INSTEAD = "Install into those instead: a virtual environment in the work "
            + "directory (python3 -m venv .venv, then .venv/bin/pip install ...), npm install without -g (npx runs "
            + "what it installed), cargo install --root ~/.local, go install with GOBIN=$HOME/bin, or "
            + "./configure --prefix=$HOME/.local before make install.";

    private WriteRefusedHint() {
    }

    /**
     * The hint for a failed job's stderr, or null.
     *
     * @param stderr the job's stderr as returned (head and tail)
     * @param workDirectory the job's work directory (its root)
     * @param home the job's {@code HOME}, or null
     * @param sandboxed whether the job ran in a wrapper that gives it a file system of its own (which makes
     *                  the system's directories read-only), rather than as the server's user
     * @return the hint, or null
     */
    static String of(String stderr, Path workDirectory, String home, boolean sandboxed) {
        if (stderr == null || stderr.isEmpty()) {
            return null;
        }
        if (EXTERNALLY_MANAGED.matcher(stderr).find()) {
            return "pip refused to install into the Python the system manages (externally-managed-environment). "
                    + "Do not pass --break-system-packages; make a virtual environment in the work directory and "
                    + "install there: python3 -m venv .venv && .venv/bin/pip install ... (then run .venv/bin/python, "
                    + "or 'source .venv/bin/activate' in the same command, since each exec_run is a new shell).";
        }
        if (FULL.matcher(stderr).find()) {
            return full(workDirectory);
        }
        Matcher m = REFUSED.matcher(stderr);
        while (m.find()) {
            String line = m.group();
            if (!WRITING.matcher(PATH.matcher(line).replaceAll(" ")).find()) {   // the words, not a path's
                continue;
            }
            String path = outsidePath(line, workDirectory, home);
            if (path == null) {
                continue;
            }
            if (PACKAGE_MANAGER.stream().anyMatch(p -> under(path, p))) {
                return "The command was refused '" + path + "': installing system packages needs root, which "
                        + "jobs do not have (sudo does not help: nobody can answer its prompt). Install for the user "
                        + "instead, where a job may write (the work directory, HOME" + home(home) + " and /tmp), or "
                        + "ask the server's operator to install the package on the machine.";
            }
            String what = m.group(1).toLowerCase(Locale.ROOT).contains("read-only")
                    ? "could not write '" + path + "': " + (sandboxed ? "this server's sandbox keeps it read-only"
                    : "its file system is read-only")
                    : "was refused access to '" + path + "': " + (sandboxed ? "the sandbox does not let jobs write there"
                    : "this server's user may not write there");
            return "The command " + what + ". Jobs may write in the work directory, in HOME" + home(home) + " and in "
                    + "/tmp; sudo does not help (nobody can answer its prompt). " + INSTALL_INSTEAD;
        }
        return null;
    }

    private static String home(String home) {
        return home == null || home.isEmpty() ? "" : " (" + home + ")";
    }

    /**
     * The first absolute path of a line that is outside the places a job may write (its work directory, its
     * HOME, /tmp and /dev), or null: a refused write inside them is the job's own affair (a mode it set).
     */
    private static String outsidePath(String line, Path workDirectory, String home) {
        Matcher p = PATH.matcher(line);
        while (p.find()) {
            String path = p.group(1) != null ? p.group(1) : p.group(2);
            if (path.length() < 2) {
                continue;
            }
            if (line.strip().startsWith(path + ":")) {
                continue;     // the program that reports ("/bin/sh: 1: cannot create X: ..."), not what it wrote
            }
            if (under(path, workDirectory.toString()) || home != null && !home.isEmpty() && under(path, home)
                    || under(path, "/tmp") || under(path, "/dev") || under(path, "/proc")) {
                return null;
            }
            return path;
        }
        return null;
    }

    private static boolean under(String path, String dir) {
        String d = dir.endsWith("/") ? dir.substring(0, dir.length() - 1) : dir;
        return path.equals(d) || path.startsWith(d + "/");
    }

    private static String full(Path workDirectory) {
        String free;
        try {
            long bytes = Files.getFileStore(workDirectory).getUsableSpace();
            free = ": the work directory's file system has " + (bytes >> 20) + " MiB free now";
        } catch (IOException | RuntimeException e) {
            free = "";
        }
        return "The disk the command wrote to is full, or its quota used up (No space left on device)" + free + ". "
                + "Running it again as it is will fail the same way. Free space first: delete what builds and "
                + "downloads left in the work directory and HOME (file_delete, or rm -rf in exec_run: build/, dist/, "
                + "target/, node_modules/, .cache/), keep test data small, and pass --no-cache-dir to pip. If the disk "
                + "is still full, tell the server's operator.";
    }
}
