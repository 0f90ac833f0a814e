package org.vancetope.worktarget.core.transfer;

import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Creates an {@code ephemeral} RootDir for the calling process: an empty folder with
 * its own {@code dirName}, deleted when its creator closes unless asked otherwise. Implemented by the
 * workspace backend; {@link FileTransferTools#ephemeralDirTool(EphemeralDirCreator)} exposes it as
 * the {@code workspace_create_ephemeral_dir} tool.
 *
 * <pre>{@code
 * EphemeralDirCreator creator = (ctx, purpose, deleteOnClose) -> workspace.createEphemeral(ctx, purpose, deleteOnClose);
 * }</pre>
 */
@FunctionalInterface
public interface EphemeralDirCreator {

    /**
     * Creates the RootDir.
     *
     * @param context the calling process
     * @param purpose free-text metadata (e.g. {@code "user-upload"}), or null
     * @param deleteOnCreatorClose whether the RootDir is deleted when the creating process closes
     * @return the new RootDir's {@code dirName}
     * @throws ToolException when it cannot be created
     */
    String create(ToolContext context, String purpose, boolean deleteOnCreatorClose) throws ToolException;
}
