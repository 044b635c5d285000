package dev.cairn.broker.raft;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a broker that is not in raft.voters joins the cluster those voters form: it hosts the metadata group outside
 * its voters (Ratis's initializing state, which runs no election: started as a voter, it would campaign with an empty
 * log and the leader would tell it to shut down), then asks the group's leader to add it as a voter. The leader
 * catches it up before the new configuration commits. A broker that joined before (a restart) is a voter already.
 */
final class ClusterJoin {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterJoin.class);
    /** How long a joining broker waits for the metadata group to take it in before its start fails. */
    static final long JOIN_WAIT_MS_MAX = 120_000;
    /** The pause between asks, while no leader answers. */
    private static final long JOIN_RETRY_MS = 1_000;

    private ClusterJoin() {
    }

    /**
     * @param voters the metadata group's voters as raft.voters lists them (without this broker)
     */
    static void join(RaftHost host, RaftGroupId metadataGroup, RaftPeer self, List<RaftPeer> voters,
            RaftClient metadataClient) throws IOException {
        host.addGroup(metadataGroup, voters);
        if (isVoter(host, metadataGroup, self)) {
            return;
        }
        LOG.info("node {} is not in raft.voters: asking the metadata group's voters {} to take it in", self.getId(),
                voters.stream().map(RaftPeer::getId).toList());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(JOIN_WAIT_MS_MAX);
        Object last = null;
        while (System.nanoTime() < deadline) {
            try {
                RaftClientReply reply = metadataClient.admin().setConfiguration(
                        SetConfigurationRequest.Arguments.newBuilder().setServersInNewConf(List.of(self))
                                .setMode(SetConfigurationRequest.Mode.ADD).build());
                if (reply.isSuccess()) {
                    LOG.info("node {} joined the metadata group", self.getId());
                    return;
                }
                last = reply.getException();
            } catch (IOException e) {
                last = e;
            }
            try {
                TimeUnit.MILLISECONDS.sleep(JOIN_RETRY_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while joining the cluster", e);
            }
        }
        throw new IOException("node " + self.getId() + " could not join the cluster of raft.voters " + voters
                + " within " + JOIN_WAIT_MS_MAX + " ms (is a majority of them up, and do they reach this broker at "
                + self.getAddress() + "?): " + last);
    }

    private static boolean isVoter(RaftHost host, RaftGroupId group, RaftPeer self) {
        return host.voters(group).map(ids -> ids.contains(self.getId().toString())).orElse(false);
    }
}
