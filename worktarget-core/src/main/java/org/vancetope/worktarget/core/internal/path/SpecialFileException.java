package org.vancetope.worktarget.core.internal.path;

import java.nio.file.FileSystemException;

/**
 * An entry that was opened as a file turned out not to be one (it cannot seek: a FIFO a process put in
 * its place after it was checked). {@link ConfinedRoot#io} makes it the refusal of a special file.
 */
public final class SpecialFileException extends FileSystemException {
    private static final long serialVersionUID = 1L;

    /**
     * The refusal of an entry.
     *
     * @param file the entry
     */
    public SpecialFileException(String file) {
        super(file, null, "is not a regular file (a FIFO, socket or device)");
    }
}
