# The tokenizer tables of memory/retrieval/token_count.py (OpenAI o200k / cl100k, Qwen2.5). quicktok reads
# them from its package's data/ folder by path, which the import scan does not see. Llama 3's table is
# left out: the app does not use it, and it is under Meta's licence, not MIT / Apache-2.0 (NOTICE.md).
import glob
import os

from PyInstaller.utils.hooks import get_package_paths

_, _package = get_package_paths("quicktok")
datas = [(path, "quicktok/data") for path in sorted(glob.glob(os.path.join(_package, "data", "*")))
         if not os.path.basename(path).startswith("llama3")]
