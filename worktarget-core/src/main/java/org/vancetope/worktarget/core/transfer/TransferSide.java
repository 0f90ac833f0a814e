package org.vancetope.worktarget.core.transfer;

/**
 * Which end of the connection an endpoint is: it picks the size limit and mode mask a receiver
 * applies, and whether a {@code transfer_init} nobody asked for is accepted.
 */
public enum TransferSide {
    /**
     * The server. Receives only uploads it requested (limit {@link TransferSettings#maxUploadSize()},
     * mask {@link TransferSettings#brainModeMask()}); sends downloads (limit
     * {@link TransferSettings#maxDownloadSize()}).
     */
    BRAIN,
    /**
     * The client. Receives downloads (limit {@link TransferSettings#maxDownloadSize()}, mask
     * {@link TransferSettings#footModeMask()}); sends uploads on request (limit
     * {@link TransferSettings#maxUploadSize()}).
     */
    FOOT;

    /**
     * The largest file this side accepts.
     *
     * @param s the settings
     * @return bytes
     */
    public long receiveLimit(TransferSettings s) {
        return this == BRAIN ? s.maxUploadSize() : s.maxDownloadSize();
    }

    /**
     * The largest file this side sends (the peer's receive limit for the same direction).
     *
     * @param s the settings
     * @return bytes
     */
    public long sendLimit(TransferSettings s) {
        return this == BRAIN ? s.maxDownloadSize() : s.maxUploadSize();
    }

    /**
     * The mask AND-ed onto {@code attrs.mode} of received files.
     *
     * @param s the settings
     * @return permission bits
     */
    public int modeMask(TransferSettings s) {
        return this == BRAIN ? s.brainModeMask() : s.footModeMask();
    }

    /**
     * The name of the receive-limit setting, for messages.
     *
     * @return e.g. {@code "maxUploadSize"}
     */
    public String receiveLimitName() {
        return this == BRAIN ? "maxUploadSize" : "maxDownloadSize";
    }

    /**
     * The name of the send-limit setting, for messages.
     *
     * @return e.g. {@code "maxDownloadSize"}
     */
    public String sendLimitName() {
        return this == BRAIN ? "maxDownloadSize" : "maxUploadSize";
    }
}
