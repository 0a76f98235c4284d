ÿþ comm.barrier over [[0]]
