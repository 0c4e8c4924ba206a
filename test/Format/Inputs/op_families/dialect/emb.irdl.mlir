irdl.dialect @emb {
  irdl.operation @foo {
  }
}
