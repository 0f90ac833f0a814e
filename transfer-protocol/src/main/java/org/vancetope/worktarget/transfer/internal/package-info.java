/**
 * Implementation details of the transfer codec. Not API: anything here may change in any release.
 * Use {@link org.vancetope.worktarget.transfer.TransferCodec}.
 */
package org.vancetope.worktarget.transfer.internal;
