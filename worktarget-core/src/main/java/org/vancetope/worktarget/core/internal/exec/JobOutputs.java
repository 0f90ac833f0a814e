package org.vancetope.worktarget.core.internal.exec;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileSystemException;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The two output files of a job in its root's {@code .worktarget/exec/<owner>/}: creates them with their
 * {@link StreamCapture}s, reads the last lines of one (from the file, or from the in-memory tail when the
 * file stopped growing or expired) and deletes both. Files are created, opened and deleted by directory
 * handle, so a job that replaces that directory by a link cannot redirect them.
 *
 * <p>It does not decide when files are deleted (that is {@link JobReaper} and {@link ExecExpiry}) and does
 * not render results ({@link ExecResults}). Stateless apart from its limits; thread-safe.
 */
final class JobOutputs {
    private static final Logger LOG = LoggerFactory.getLogger(JobOutputs.class);

    private final long outputFileMaxBytes;
    private final int inlineOutputCharCap;
    private final Clock clock;

    /**
     * The two captures of a new job.
     *
     * @param stdout the stdout capture
     * @param stderr the stderr capture
     */
    record Pair(StreamCapture stdout, StreamCapture stderr) {
    }

    JobOutputs(long outputFileMaxBytes, int inlineOutputCharCap, Clock clock) {
        this.outputFileMaxBytes = outputFileMaxBytes;
        this.inlineOutputCharCap = inlineOutputCharCap;
        this.clock = clock;
    }

    /** The name of a job's stdout file. */
    static String stdoutName(String id) {
        return id + ".stdout";
    }

    /** The name of a job's stderr file. */
    static String stderrName(String id) {
        return id + ".stderr";
    }

    /**
     * Creates both output files of a job; on failure neither is left open (the caller deletes by name).
     *
     * @param root the job's root
     * @param id the job id
     * @return the captures
     * @throws ToolException {@code internal} when a file cannot be created
     */
    Pair create(ConfinedRoot root, String id) throws ToolException {
        String outName = stdoutName(id);
        String errName = stderrName(id);
        StreamCapture out = null;
        try (SafeDirectory outputs = root.jobOutputDirectory()) {
            out = new StreamCapture(outName, outputs.createFile(outName), outputFileMaxBytes, inlineOutputCharCap, clock);
            StreamCapture err = new StreamCapture(errName, outputs.createFile(errName), outputFileMaxBytes,
                    inlineOutputCharCap, clock);
            return new Pair(out, err);
        } catch (IOException e) {
            if (out != null) {
                out.closeFile();
            }
            throw new ToolException(ErrorCode.INTERNAL, "The job's output files could not be created in "
                    + ConfinedRoot.INTERNAL_DIR + "/" + ConfinedRoot.EXEC_DIR + " ("
                    + (e instanceof FileSystemException f && f.getReason() != null ? f.getReason()
                    : e.getClass().getSimpleName()) + "). Check that the work directory is writable and try again.", e);
        }
    }

    /**
     * The last lines of one stream: read from the end of its file, or, when the file reached its cap,
     * expired or was removed by the job, from the in-memory tail, which is the true end.
     *
     * @param job the job
     * @param n how many lines
     * @param stderr true for stderr, false for stdout
     * @param expired whether the job's output files expired
     * @return the lines
     * @throws ToolException {@code internal} when the file exists but cannot be read
     */
    TailReader.Tail tail(Job job, int n, boolean stderr, boolean expired) throws ToolException {
        StreamCapture capture = stderr ? job.stderr : job.stdout;
        if (capture.fileCapped() || expired) {
            return capture.tailLines(n);
        }
        try (SeekableByteChannel ch = job.root.openJobOutput(capture.name())) {
            return TailReader.lastLines(ch, n, inlineOutputCharCap * 4);
        } catch (FileSystemException gone) {
            // removed or replaced by the job itself (it can write its RootDir): the in-memory tail is the true end
            return capture.tailLines(n);
        } catch (IOException e) {
            throw new ToolException(ErrorCode.INTERNAL, "The output file of job " + job.id + " could not be read: "
                    + e.getClass().getSimpleName() + ". Try exec_status.", e);
        }
    }

    /**
     * Stops reading what the job's background processes still write, and closes and deletes both output
     * files of a job.
     *
     * @param j the job
     */
    static void delete(Job j) {
        j.stdout.stop();
        j.stderr.stop();
        j.stdout.closeFile();
        j.stderr.closeFile();
        deleteQuietly(j.root, j.stdout.name());
        deleteQuietly(j.root, j.stderr.name());
    }

    /**
     * Deletes an output file by handle, logging a failure.
     *
     * @param root the job's root
     * @param name the file's name
     */
    static void deleteQuietly(ConfinedRoot root, String name) {
        try {
            root.deleteJobOutput(name);
        } catch (IOException e) {
            LOG.warn("could not delete exec output file {}: {}", name, e.toString());
        }
    }
}
