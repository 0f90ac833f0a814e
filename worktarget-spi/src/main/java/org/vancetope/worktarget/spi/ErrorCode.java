package org.vancetope.worktarget.spi;

import java.util.Locale;
import java.util.Optional;

/**
 * The stable error codes of the wire protocol. Every failure of a tool call maps to
 * exactly one of them; clients and LLM prompts may branch on {@link #wire()}.
 */
public enum ErrorCode {
    /** A frame that is not valid JSON, lacks {@code type}, or has an unknown {@code type}. */
    BAD_FRAME,
    /** Authentication is missing or was rejected. */
    UNAUTHORIZED,
    /** The principal is not granted the tenant or project it asked for. */
    FORBIDDEN,
    /** A newer connection took over this daemon name. */
    SUPERSEDED,
    /** The tool name is not known to the backend that was asked. */
    UNKNOWN_TOOL,
    /** Parameters are missing, malformed or not accepted by the active backend. */
    INVALID_PARAMS,
    /** The client or daemon that should run the call is not connected. */
    OFFLINE,
    /** The call did not finish within its timeout. */
    TIMEOUT,
    /** The call was cancelled. */
    CANCELLED,
    /** A path resolves outside the root it is confined to. */
    PATH_ESCAPE,
    /** The file, directory, job or RootDir does not exist. */
    NOT_FOUND,
    /** The target already exists and the operation does not overwrite. */
    EXISTS,
    /** A size limit was exceeded. */
    SIZE_LIMIT,
    /** Not enough disk space. */
    DISK_FULL,
    /** A transferred file's SHA-256 did not match the announced hash. */
    HASH_MISMATCH,
    /** A budget (for example the HOME size budget) is exhausted. */
    BUDGET_EXCEEDED,
    /**
     * A transfer's compressed chunk was refused: zstd was not announced for the transfer, the chunk
     * declares or carries more than the receiver's chunk size, or its data are not valid zstd of the declared
     * size. A correct sender never sends one; the file must be sent again.
     */
    ZSTD_REFUSED,
    /**
     * The file being sent changed while it was sent: it ended before or went on past the size announced
     * in {@code transfer_init}, or a transfer to be resumed no longer has the size or hash it started
     * with. Nothing of it was committed; send it again once it no longer changes (a resume cannot help).
     * Also {@code file_edit}'s, when another program changed the file every time the edit was applied
     * (three times in a row): nothing was written.
     */
    SOURCE_CHANGED,
    /** An unexpected internal failure. */
    INTERNAL;

    /**
     * The code as it appears on the wire, e.g. {@code "path_escape"}.
     *
     * @return the lower-case wire form
     */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a wire code.
     *
     * @param wire the wire form, e.g. {@code "offline"}
     * @return the code, or empty when {@code wire} is null or not a known code
     */
    public static Optional<ErrorCode> fromWire(String wire) {
        if (wire == null) {
            return Optional.empty();
        }
        for (ErrorCode c : values()) {
            if (c.wire().equals(wire.trim().toLowerCase(Locale.ROOT))) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }
}
